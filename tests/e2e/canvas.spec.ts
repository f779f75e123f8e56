/**
 * The canvas by mouse and keyboard: drag a step onto the gap between two others to reorder it;
 * arrow keys, Enter, Shift+A, Ctrl+D and Escape without touching the mouse.
 */
import { expect, test } from "@playwright/test";
import { inspector, openRecipe, selectStep, shot, stepNames, stepNode } from "./helpers";

test("dragging a step onto the gap between two others moves it there", async ({ page }) => {
  await openRecipe(page, "basic-scene-setup");
  const from = (await stepNode(page, "Set camera").boundingBox())!;
  const above = (await stepNode(page, "Create new scene").boundingBox())!;
  const below = (await stepNode(page, "Create ground").boundingBox())!;
  const gapY = (above.y + above.height + below.y) / 2;
  await page.mouse.move(from.x + 80, from.y + 14);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(from.x + 80 + i * 3, from.y + 14 + ((gapY - from.y) * i) / 10);
  await expect(page.locator(".drop-slot")).toBeVisible();
  await shot(page, "canvas-drag-to-reorder");
  await page.mouse.up();
  await expect.poll(() => stepNames(page)).toEqual(["Create new scene", "Set camera", "Create ground", "Add sun light", "Take screenshot"]);
  await page.keyboard.press("ControlOrMeta+z");
  await expect.poll(() => stepNames(page)).toEqual(["Create new scene", "Create ground", "Add sun light", "Set camera", "Take screenshot"]);
});

test("the keyboard alone selects, edits, adds and duplicates steps", async ({ page }) => {
  await openRecipe(page, "basic-scene-setup");
  await page.getByTestId("canvas").focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(stepNode(page, "Create ground")).toHaveClass(/is-selected/);
  await page.keyboard.press("Enter");
  await expect(inspector(page).locator('input[id^="s-"][id$="-name"]')).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("canvas")).toBeFocused();

  await page.keyboard.press("Shift+A");
  await page.getByRole("searchbox", { name: "Search tools" }).pressSequentially("save vers");
  await page.keyboard.press("Enter");
  await page.keyboard.type("Keep a version");
  await page.keyboard.press("Escape");
  await page.keyboard.press("ControlOrMeta+d");
  await expect.poll(() => stepNames(page)).toEqual(["Create new scene", "Create ground", "Keep a version", "Keep a version 2", "Add sun light", "Set camera", "Take screenshot"]);
  await page.keyboard.press("Delete");
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toContainText("Alt+↑");
  await shot(page, "canvas-shortcuts-help");
  await page.keyboard.press("Escape");
  await expect.poll(() => stepNames(page)).toEqual(["Create new scene", "Create ground", "Keep a version", "Add sun light", "Set camera", "Take screenshot"]);
  await selectStep(page, "Keep a version");
  await expect(inspector(page)).toContainText("save_version");
});
