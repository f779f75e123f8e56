/**
 * Acceptance: basic-scene-setup built from an empty builder by clicking and typing only, saved
 * over the sample of that name (after the overwrite warning), gives exactly the sample file,
 * comments aside.
 */
import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, inspector, param, projectDir, shot, stepNames, typeInto } from "./helpers";

async function addStep(page: Page, tool: string, name: string) {
  // The first step through the "+ Add step" node, the next ones through the toolbar's "+ Step"
  // (which adds after the selected step: the one just added).
  const empty = (await stepNames(page)).length === 0;
  await (empty ? page.getByTestId("add-step-end") : page.getByRole("button", { name: "+ Step" })).click();
  const search = page.getByRole("searchbox", { name: "Search tools" });
  await search.pressSequentially(tool);
  await expect(page.locator(".tool-option.is-active")).toHaveAttribute("data-tool", tool);
  if (tool === "create_light") await shot(page, "tool-picker");
  await search.press("Enter");
  // The new step's name box has the focus with its default name selected: typing replaces it.
  const nameBox = inspector(page).locator('input[id^="s-"][id$="-name"]');
  await expect(nameBox).toBeFocused();
  await page.keyboard.type(name);
}

async function vector(page: Page, key: string, label: string, values: string[]) {
  for (const [i, axis] of ["x", "y", "z"].entries()) await typeInto(param(page, key).getByLabel(`${label} ${axis}`), values[i]);
}

test("builds basic-scene-setup by clicking and typing and saves the expected YAML", async ({ page }) => {
  await page.goto("/recipes/new");
  await expect(page.getByTestId("start-node")).toBeVisible();
  await typeInto(page.locator("#r-name"), "basic-scene-setup");
  await typeInto(page.locator("#r-description"), "Create a basic scene with ground, light and camera, then take a screenshot");
  await typeInto(page.locator("#r-version"), "1.0");
  await typeInto(page.locator("#r-author"), "Kiln");

  const variables: [string, "text" | "number", string][] = [["scene_name", "text", "MyScene"], ["ground_size", "number", "100"], ["light_intensity", "number", "1.2"]];
  for (const [i, [name, type, value]] of variables.entries()) {
    await page.getByTestId("add-variable").click();
    await typeInto(page.getByLabel(`Variable ${i + 1} name`), name);
    if (type === "number") await page.getByLabel(`Variable ${name} type`).selectOption("number");
    await typeInto(page.getByLabel(`Variable ${name} default`), value);
  }

  await addStep(page, "create_scene", "Create new scene");
  await typeInto(param(page, "name").locator("input"), "{{ scene_name }}");
  await param(page, "if_exists").locator("select").selectOption("reuse");

  await addStep(page, "create_gameobject", "Create ground");
  await typeInto(param(page, "name").locator("input"), "Ground");
  await param(page, "type").locator("select").selectOption("Plane");
  await vector(page, "position", "Position", ["0", "0", "0"]);
  await vector(page, "scale", "Scale", ["{{ ground_size }}", "1", "{{ ground_size }}"]);
  await param(page, "if_exists").locator("select").selectOption("replace");

  await addStep(page, "create_light", "Add sun light");
  await typeInto(param(page, "name").locator("input"), "Sun");
  await param(page, "type").locator("select").selectOption("Directional");
  await typeInto(param(page, "intensity").locator("input"), "{{ light_intensity }}");
  await vector(page, "rotation", "Rotation", ["50", "-30", "0"]);
  await param(page, "if_exists").locator("select").selectOption("replace");

  await addStep(page, "set_camera", "Set camera");
  await vector(page, "position", "Position", ["0", "10", "-20"]);
  await vector(page, "rotation", "Rotation", ["20", "0", "0"]);

  await addStep(page, "take_screenshot", "Take screenshot");
  await typeInto(param(page, "width").locator("input"), "1280");
  await typeInto(param(page, "height").locator("input"), "720");

  expect(await stepNames(page)).toEqual(["Create new scene", "Create ground", "Add sun light", "Set camera", "Take screenshot"]);
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await page.getByRole("button", { name: "Auto-layout" }).click();
  await shot(page, "build-from-scratch-canvas");

  // The project already has basic-scene-setup (a copy of the sample): Kiln asks first.
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Save anyway?" });
  await expect(dialog).toContainText("A project recipe named basic-scene-setup exists");
  await shot(page, "build-from-scratch-overwrite-warning");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast-ok")).toContainText("Saved");
  await expect(page).toHaveURL(/\/recipes\/basic-scene-setup$/);

  const saved = readFileSync(path.join(projectDir(), "recipes/basic-scene-setup.yaml"), "utf8");
  const sample = readFileSync(path.join(ROOT, "recipes/basic-scene-setup.yaml"), "utf8");
  expect(saved).toBe(sample.replace(/^(#.*\n)+/, ""));
});
