/**
 * Acceptance: a recipe with an error shows it on the node it belongs to (and nowhere else);
 * fixing it in the side panel clears it.
 */
import { expect, test } from "@playwright/test";
import { openRecipe, param, selectStep, shot, stepNode, validated } from "./helpers";

test("shows a validation error on the right node and clears it once fixed", async ({ page }) => {
  await openRecipe(page, "broken-ground");
  expect(await validated(page)).toBe("1 problem");
  const ground = stepNode(page, "Create ground");
  await expect(ground.getByTestId("node-error")).toContainText(/expected one of/i);
  await expect(page.getByTestId("node-error")).toHaveCount(1);

  await page.getByRole("button", { name: "Validate" }).click();
  await expect(page.getByTestId("toast-error")).toContainText("1 problem");
  await selectStep(page, "Create ground");
  await expect(param(page, "type").getByRole("alert")).toContainText(/expected one of/i);
  await shot(page, "validate-error-on-node");

  await param(page, "type").locator("select").selectOption("Plane");
  await expect(page.getByTestId("node-error")).toHaveCount(0);
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await page.getByRole("button", { name: "Validate" }).click();
  await expect(page.getByTestId("toast-ok")).toContainText("Valid");
  await shot(page, "validate-fixed");
});

test("checks a condition's syntax as it is typed", async ({ page }) => {
  await openRecipe(page, "conditional-props");
  await selectStep(page, "Add lamp");
  const condition = page.getByLabel("Condition");
  await expect(page.getByTestId("condition-ok")).toBeVisible();
  await condition.fill("vars.lamp_intensity >");
  await expect(page.getByTestId("condition-error")).toContainText("syntax error");
  await shot(page, "validate-condition-syntax");
  await condition.fill("vars.lamp_intensity > 1");
  await expect(page.getByTestId("condition-ok")).toBeVisible();
  await expect(stepNode(page, "Add lamp").locator(".badge-if")).toHaveText("if vars.lamp_intensity > 1");
});
