/**
 * The /recipes page: every recipe with its source, validity, steps and last run; duplicate;
 * delete after a confirmation; user-wide recipes cannot be deleted, and saving a project recipe
 * of their name warns first.
 */
import { expect, test } from "@playwright/test";
import { existsSync } from "node:fs";
import path from "node:path";
import { projectDir, shot } from "./helpers";

test("lists, duplicates and deletes recipes", async ({ page }) => {
  await page.goto("/recipes");
  const row = (name: string) => page.locator(`[data-testid="recipe-row"][data-recipe="${name}"]`).first();
  await expect(row("basic-scene-setup")).toContainText("Create a basic scene");
  await expect(row("basic-scene-setup")).toContainText("✓ valid");
  await expect(row("broken-ground")).toContainText("1 problem");
  await expect(row("shared-lights")).toContainText("user");
  await expect(row("shared-lights").getByRole("button", { name: "Delete shared-lights" })).toBeDisabled();
  await shot(page, "recipe-list");

  await row("colored-materials").getByRole("button", { name: "Duplicate colored-materials" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Duplicate" }).click();
  await expect(row("colored-materials-copy")).toContainText("6");
  expect(existsSync(path.join(projectDir(), "recipes/colored-materials-copy.yaml"))).toBe(true);
  // A run started elsewhere (here over HTTP) shows in "Last run" without a reload.
  await expect(row("colored-materials-copy")).toContainText("never");
  const run = await (await page.request.post("/tools/run_recipe", { data: { recipe: "colored-materials-copy" } })).json();
  expect(run.ok, JSON.stringify(run.error)).toBe(true);
  await expect(row("colored-materials-copy")).toContainText(run.result.status, { timeout: 30_000 });

  await row("colored-materials-copy").getByRole("button", { name: "Delete colored-materials-copy" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete colored-materials-copy?" });
  await expect(confirm).toContainText("colored-materials-copy.yaml");
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(row("colored-materials-copy")).toHaveCount(0);
  expect(existsSync(path.join(projectDir(), "recipes/colored-materials-copy.yaml"))).toBe(false);
});

test("saving a project recipe with a user-wide recipe's name warns that it will hide it", async ({ page }) => {
  await page.goto("/recipes/shared-lights");
  await expect(page.getByTestId("start-node")).toBeVisible();
  await page.keyboard.press("ControlOrMeta+s");
  const dialog = page.getByRole("dialog", { name: "Save anyway?" });
  await expect(dialog).toContainText("A user-wide recipe named shared-lights exists");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("toast-ok")).toContainText("takes the place of the user-wide");
  await page.goto("/recipes");
  await expect(page.locator('[data-recipe="shared-lights"]')).toHaveCount(2);
  await expect(page.locator('[data-recipe="shared-lights"].is-shadowed')).toContainText("user");
});
