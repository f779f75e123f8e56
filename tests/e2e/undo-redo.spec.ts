/**
 * Acceptance: undo and redo walk back and forth through a sequence of different edits (a
 * rename typed in the side panel, a delete and a move by keyboard, a paste, a new variable).
 */
import { expect, test } from "@playwright/test";
import { inspector, openRecipe, selectStep, shot, stepNames, typeInto } from "./helpers";

test("undo and redo walk through a sequence of edits", async ({ page }) => {
  await openRecipe(page, "basic-scene-setup");
  const original = await stepNames(page);
  const states: string[][] = [original];

  // 1. Rename a step (typed: one undo step however many keys).
  await selectStep(page, "Create ground");
  await typeInto(inspector(page).locator('input[id^="s-"][id$="-name"]'), "Create the floor");
  states.push(["Create new scene", "Create the floor", "Add sun light", "Set camera", "Take screenshot"]);
  // 2. Delete a step with the Delete key.
  await selectStep(page, "Set camera");
  await page.keyboard.press("Delete");
  states.push(["Create new scene", "Create the floor", "Add sun light", "Take screenshot"]);
  // 3. Move the last step up with Alt+↑.
  await selectStep(page, "Take screenshot");
  await page.keyboard.press("Alt+ArrowUp");
  states.push(["Create new scene", "Create the floor", "Take screenshot", "Add sun light"]);
  // 4. Copy a step and paste it after the selection.
  await selectStep(page, "Create new scene");
  await page.keyboard.press("ControlOrMeta+c");
  await page.keyboard.press("ControlOrMeta+v");
  states.push(["Create new scene", "Create new scene 2", "Create the floor", "Take screenshot", "Add sun light"]);

  await expect.poll(() => stepNames(page)).toEqual(states[4]);
  await shot(page, "undo-redo-after-edits");

  await page.locator('[data-testid="canvas"]').focus();
  for (let i = states.length - 2; i >= 0; i--) {
    await page.keyboard.press("ControlOrMeta+z");
    await expect.poll(() => stepNames(page)).toEqual(states[i]);
  }
  await expect(page.getByRole("button", { name: "Undo" })).toBeDisabled();
  await shot(page, "undo-redo-all-undone");
  for (let i = 1; i < states.length; i++) {
    await page.keyboard.press("ControlOrMeta+Shift+z");
    await expect.poll(() => stepNames(page)).toEqual(states[i]);
  }
  await expect(page.getByRole("button", { name: "Redo" })).toBeDisabled();
});

test("undo covers recipe fields and variables typed in the side panel", async ({ page }) => {
  await openRecipe(page, "colored-materials");
  await page.getByTestId("start-node").click();
  const description = await page.locator("#r-description").inputValue();
  await typeInto(page.locator("#r-description"), "Two materials");
  await page.getByTestId("add-variable").click();
  await expect(page.getByTestId("node-variable")).toHaveCount(8);
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("node-variable")).toHaveCount(7);
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.locator("#r-description")).toHaveValue(description);
  await expect(page.getByTestId("start-node")).toContainText(description.slice(0, 20));
  await page.getByRole("button", { name: "Redo" }).click();
  await expect(page.locator("#r-description")).toHaveValue("Two materials");
});
