/**
 * Acceptance (issue 28, runs): the run history shows each run's variables, so two runs with
 * different values no longer look the same, and one click runs a recipe again with an earlier
 * run's values; a step's inputs (its params as the tool got them) and outputs show per node; a
 * create_scene that switched the app's active scene says so on its step and in the history.
 */
import { expect, test, type Page } from "@playwright/test";
import { openRecipe, selectStep, shot } from "./helpers";

async function runWith(page: Page, values: Record<string, string>) {
  await page.getByRole("button", { name: "▶ Run" }).click();
  const dialog = page.getByRole("dialog", { name: "Run basic-scene-setup" });
  for (const [k, v] of Object.entries(values)) await dialog.getByLabel(k).fill(v);
  await dialog.getByTestId("run-confirm").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });
}

test("re-run a recipe with the variables of an earlier run; each step shows its inputs and outputs", async ({ page, request }) => {
  const first = `Dusk${Date.now() % 100000}`;
  await openRecipe(page, "basic-scene-setup");
  await runWith(page, { scene_name: first, ground_size: "40" });
  await runWith(page, {});
  const history = page.getByTestId("run-history");
  // Nothing selected: the recipe's panel, with the history. The two runs read differently.
  await page.getByTestId("canvas").focus();
  await page.keyboard.press("Escape");
  const items = history.getByTestId("run-history-item");
  await expect(items.nth(0).getByTestId("run-vars")).toContainText('scene_name"MyScene"');
  await expect(items.nth(1).getByTestId("run-vars")).toContainText(`scene_name"${first}"`);
  await expect(items.nth(1).getByTestId("run-vars")).toContainText("ground_size40");
  // The earlier run's own values stand out against the defaults.
  await expect(items.nth(1).locator(".is-changed")).toHaveCount(2);
  await expect(items.nth(0)).toContainText(`Switched unity's active scene to MyScene (was ${first})`);
  await history.scrollIntoViewIfNeeded();
  await shot(page, "run-history-variables");

  const t = { started: Date.now() };
  await items.nth(1).getByTestId("run-again").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "running");
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });
  console.log(`TASK re-run a recipe with the variables of an earlier run: ${((Date.now() - t.started) / 1000).toFixed(1)} s, 1 click (Run again on that run)`);
  const runs = (await (await request.post("/tools/list_recipe_runs", { data: { recipe: "basic-scene-setup", limit: 1 } })).json()).result.runs;
  expect(runs[0].variables).toMatchObject({ scene_name: first, ground_size: 40 });
  await expect(items.nth(0).getByTestId("run-vars")).toContainText(`scene_name"${first}"`);

  // Per node: what the step was given and what it gave back; the scene switch said on its step.
  await selectStep(page, "Create ground");
  const output = page.getByTestId("run-output");
  await expect(output.getByTestId("step-inputs")).toContainText("scale(40, 1, 40)");
  await expect(output.getByTestId("step-output")).toContainText('"name": "Ground"');
  await shot(page, "run-step-inputs");
  await selectStep(page, "Create new scene");
  await expect(output.getByTestId("scene-switch")).toHaveText(`Made ${first} the active scene of unity (it was MyScene).`);
  await expect(output.getByTestId("step-inputs")).toContainText(`name"${first}"`);

  // "Change values…" starts the run dialog from that run's values.
  await page.getByTestId("canvas").focus();
  await page.keyboard.press("Escape");
  await items.nth(0).getByTestId("run-edit").click();
  const dialog = page.getByRole("dialog", { name: "Run basic-scene-setup" });
  await expect(dialog.getByLabel("scene_name")).toHaveValue(first);
  await expect(dialog.getByLabel("ground_size")).toHaveValue("40");
  await dialog.getByRole("button", { name: "Cancel" }).click();
});
