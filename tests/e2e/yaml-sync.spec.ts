/**
 * Acceptance: the YAML panel and the canvas follow each other. Typing YAML changes the canvas
 * as soon as it parses (broken YAML is reported and leaves the canvas alone); editing on the
 * canvas rewrites the YAML, keeping the file's comments and the rest of its text.
 */
import { expect, test } from "@playwright/test";
import { inspector, openRecipe, selectStep, shot, stepNames, stepNode, typeInto } from "./helpers";

test("editing the YAML updates the canvas, and editing the canvas updates the YAML", async ({ page }) => {
  await openRecipe(page, "colored-materials");
  await page.getByRole("button", { name: "YAML" }).click();
  const text = page.getByRole("textbox", { name: "Recipe YAML text" });
  await expect(text).toHaveValue(/^# Two materials whose colours are variables/);
  const original = await text.inputValue();

  // YAML → canvas: rename a step, change a variable, add a step at the end.
  const edited = original
    .replace("- name: Create secondary material", "- name: Create accent material")
    .replace('prefix: "Demo"', 'prefix: "Studio"')
    .concat("\n  - name: Save the result\n    tool: save_version\n    params:\n      name: \"after painting\"\n");
  await text.fill(edited);
  await expect(stepNode(page, "Create accent material")).toBeVisible();
  await expect(stepNode(page, "Save the result")).toContainText("save_version");
  await expect(page.locator('[data-variable="prefix"]')).toContainText('"Studio"');
  expect(await stepNames(page)).toEqual(["Create primary material", "Create accent material", "Create cube", "Create sphere", "Paint cube", "Paint sphere", "Save the result"]);
  await shot(page, "yaml-to-canvas");

  // Broken YAML: reported with its line; the canvas keeps the last good recipe.
  await text.fill(edited.replace("steps:", "steps: [oops"));
  await expect(page.getByTestId("yaml-problem")).toContainText("Line");
  await expect(stepNode(page, "Save the result")).toBeVisible();
  await shot(page, "yaml-broken");
  await text.fill(edited);
  await expect(page.getByTestId("yaml-problem")).toHaveCount(0);

  // Canvas → YAML: rename a step and change a vector component in the side panel.
  await selectStep(page, "Create sphere");
  await typeInto(inspector(page).locator('input[id^="s-"][id$="-name"]'), "Create ball");
  await typeInto(inspector(page).getByLabel("Position y"), "2");
  await expect(text).toHaveValue(/- name: Create ball\n    tool: create_gameobject\n    params:\n      name: "\{\{ prefix \}\} Sphere"\n      type: Sphere\n      position: \{ x: 1.5, y: 2, z: 0 \}/);
  // Renaming the step renamed its id; the step that read its result follows it.
  await expect(text).toHaveValue(/target: "\{\{ steps\.create_ball\.result\.object\.name \}\}"/);
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  // The rest is as it was typed, comments included.
  await expect(text).toHaveValue(/^# Two materials whose colours are variables/);
  await expect(text).toHaveValue(/\n  # Step results feed later steps: the names as the tools returned them.\n  - name: Paint cube/);
  await shot(page, "canvas-to-yaml");
});

test("loads a .yaml file onto the canvas and downloads the recipe as YAML", async ({ page }) => {
  await page.goto("/recipes/new");
  await page.getByRole("button", { name: "YAML" }).click();
  const file = "name: from-a-file\ndescription: Loaded from disk\nsteps:\n  - name: Look around\n    tool: get_scene\n";
  await page.getByTestId("yaml-file").setInputFiles({ name: "from-a-file.yaml", mimeType: "application/yaml", buffer: Buffer.from(file) });
  await expect(stepNode(page, "Look around")).toContainText("get_scene");
  await expect(page.getByTestId("recipe-title")).toHaveText(/from-a-file/);
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download" }).click();
  const saved = await download;
  expect(saved.suggestedFilename()).toBe("from-a-file.yaml");
  const { readFileSync } = await import("node:fs");
  expect(readFileSync((await saved.path())!, "utf8")).toBe(file);
});
