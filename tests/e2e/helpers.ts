/** Shared bits of the builder's e2e tests: where things are, and how to look at them. */
import { expect, type Locator, type Page } from "@playwright/test";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The temp project folder the service runs in (its ./recipes is a copy). */
export function projectDir(): string {
  const dir = process.env.KILN_E2E_PROJECT;
  if (!dir) throw new Error("KILN_E2E_PROJECT is not set: run these tests with `npx playwright test` (global setup starts Kiln)");
  return dir;
}

/** Saves a screenshot to tests/output/e2e/<name>.png (look at them after a run). */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ROOT, "tests/output/e2e", `${name}.png`) });
}

/** The canvas node of the step with this name. */
export function stepNode(page: Page, name: string): Locator {
  return page.locator(`[data-testid="step-node"][data-step-name="${name}"]`);
}

/** Step names in chain order, as the canvas shows them. */
export async function stepNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid="step-node"]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-step-name") ?? ""));
}

/** Opens the builder on a saved recipe and waits until its canvas is there. */
export async function openRecipe(page: Page, name: string): Promise<void> {
  await page.goto(`/recipes/${name}`);
  await expect(page.getByTestId("start-node")).toBeVisible();
}

/** Waits until live validation has answered for the current recipe. */
export async function validated(page: Page): Promise<string> {
  const validity = page.getByTestId("validity");
  await expect(validity).toHaveText(/valid|problem/);
  return (await validity.textContent()) ?? "";
}

/** Replaces the text of an input by clicking it and typing, as a person would. */
export async function typeInto(field: Locator, text: string): Promise<void> {
  await field.click();
  await field.press("ControlOrMeta+a");
  if (text === "") await field.press("Backspace");
  else await field.pressSequentially(text);
}

/** The side panel. */
export function inspector(page: Page): Locator {
  return page.locator("#inspector");
}

/** A param field of the selected step, by parameter name. */
export function param(page: Page, key: string): Locator {
  return inspector(page).locator(`[data-field="${key}"]`);
}

/**
 * Selects a step by clicking its title row. A node out of view (or under the minimap, whose
 * clicks pan the view) is first brought into view with Auto-layout's fit (Shift+L), as a person
 * would pan to it.
 */
export async function selectStep(page: Page, name: string): Promise<void> {
  const node = stepNode(page, name);
  const canvas = (await page.getByTestId("canvas").boundingBox())!;
  const minimapLocator = page.locator(".react-flow__minimap");
  const minimap = (await minimapLocator.count()) > 0 ? await minimapLocator.boundingBox() : null;
  const box = await node.boundingBox();
  const title = box && { x: box.x + 80, y: box.y + 14 };
  const hidden = !title || title.x > canvas.x + canvas.width || title.y > canvas.y + canvas.height || title.y < canvas.y
    || (minimap && title.x >= minimap.x && title.y >= minimap.y);
  if (hidden) {
    await page.getByTestId("canvas").focus();
    await page.keyboard.press("Shift+L");
    await page.waitForTimeout(400);
  }
  await node.click({ position: { x: 80, y: 14 } });
  await expect(node).toHaveClass(/is-selected/);
}
