/**
 * Acceptance: a recipe run from the builder turns every node succeeded, and the screenshot step
 * shows the image it took (served at /screenshots/<id>.png).
 */
import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { openRecipe, projectDir, selectStep, shot, stepNode, stepNames } from "./helpers";

test("runs a recipe with a variable override; every node succeeds and the screenshot shows", async ({ page }) => {
  await openRecipe(page, "basic-scene-setup");
  const seen = new Set<string>();
  await page.exposeFunction("reportStatus", (s: string) => seen.add(s));
  await page.evaluate(() => {
    new MutationObserver(() => {
      for (const n of document.querySelectorAll("[data-testid=step-node]")) (window as unknown as { reportStatus(s: string): void }).reportStatus(n.getAttribute("data-status") ?? "");
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["data-status"] });
  });

  await page.getByRole("button", { name: "▶ Run" }).click();
  const dialog = page.getByRole("dialog", { name: "Run basic-scene-setup" });
  await dialog.getByLabel("scene_name").fill(`E2E run ${Date.now()}`);
  await dialog.getByLabel("ground_size").fill("40");
  await shot(page, "run-dialog");
  await dialog.getByTestId("run-confirm").click();

  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });
  for (const name of await stepNames(page)) await expect(stepNode(page, name)).toHaveAttribute("data-status", "succeeded");
  expect(seen.has("running") || seen.has("pending")).toBe(true);

  const image = stepNode(page, "Take screenshot").getByTestId("screenshot");
  await expect(image).toHaveAttribute("src", /^\/screenshots\/[0-9a-f-]{36}\.png$/);
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1280);
  const png = await page.request.get((await image.getAttribute("src"))!);
  expect(png.headers()["content-type"]).toBe("image/png");

  await selectStep(page, "Take screenshot");
  await expect(page.getByTestId("run-output")).toContainText("Succeeded");
  await expect(page.getByTestId("run-output").getByTestId("screenshot")).toBeVisible();
  await shot(page, "run-succeeded");
  await selectStep(page, "Create ground");
  await expect(page.getByTestId("run-output")).toContainText('"name": "Ground"');
});

test("a recipe runs twice in a row and succeeds both times (if_exists: replace)", async ({ page }) => {
  await openRecipe(page, "conditional-props");
  for (let round = 1; round <= 2; round++) {
    await page.getByRole("button", { name: "▶ Run" }).click();
    await page.getByRole("dialog").getByLabel("prefix").fill("E2E props");
    await page.getByTestId("run-confirm").click();
    await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });
  }
  await expect(stepNode(page, "Create table")).toHaveAttribute("data-status", "succeeded");
  await selectStep(page, "Create table");
  await expect(page.getByTestId("run-output")).toContainText('"outcome": "replaced"');
});

test("a failed step is shown as failed with its error; a continue step's failure does not fail the run, a stop step's does", async ({ page }) => {
  await openRecipe(page, "orphan-steps");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByTestId("run-confirm").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "failed", { timeout: 60_000 });
  await expect(stepNode(page, "Create table")).toHaveAttribute("data-status", "succeeded");
  await expect(stepNode(page, "Create orphan")).toHaveAttribute("data-status", "failed");
  await expect(stepNode(page, "Add lamp")).toHaveAttribute("data-status", "failed");
  await expect(stepNode(page, "Put a vase on the table")).toHaveAttribute("data-status", "skipped");
  await selectStep(page, "Create orphan");
  await expect(page.getByTestId("run-output")).toContainText("Failed");
  await expect(page.getByTestId("run-output")).toContainText("OBJECT_NOT_FOUND");
  await shot(page, "run-failed");
});

test("running a recipe with unsaved changes saves it first", async ({ page }) => {
  await openRecipe(page, "colored-materials");
  await page.locator("#r-description").fill("Two coloured materials, painted on a cube and a sphere");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByRole("dialog").getByLabel("prefix").fill(`E2E ${Date.now()}`);
  await expect(page.getByTestId("run-confirm")).toHaveText("Save and run");
  await page.getByTestId("run-confirm").click();
  await expect(page.getByTestId("toast-ok")).toContainText("Saved");
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });
  await expect(page.getByTestId("recipe-title")).not.toContainText("●");
  expect(readFileSync(path.join(projectDir(), "recipes/colored-materials.yaml"), "utf8")).toContain("description: Two coloured materials, painted on a cube and a sphere\n");
});

test("shows the run's progress live: earlier steps succeeded while a later one is running", async ({ page }) => {
  await openRecipe(page, "slow-screenshots");
  const moments: string[] = [];
  await page.exposeFunction("reportStatuses", (s: string) => moments.push(s));
  await page.evaluate(() => {
    const report = () => (window as unknown as { reportStatuses(s: string): void }).reportStatuses([...document.querySelectorAll("[data-testid=step-node]")].map((n) => n.getAttribute("data-status")).join(","));
    new MutationObserver(report).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["data-status"] });
  });
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByRole("dialog").getByLabel("scene_name").fill(`E2E slow ${Date.now()}`);
  await page.getByTestId("run-confirm").click();
  await expect(page.getByTestId("run-status")).toHaveText(/running [1-6]\/7/, { timeout: 30_000 });
  await shot(page, "run-in-progress");
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 90_000 });
  // A moment where the first steps had succeeded and a later one was running (from polling get_recipe_run).
  expect(moments.some((m) => /^succeeded,.*running/.test(m))).toBe(true);
});
