/**
 * Acceptance: opening an existing recipe shows every step (name, tool, condition, on_error) and
 * every variable on the canvas; checked against the sample files themselves.
 */
import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { ROOT, openRecipe, shot, stepNames, stepNode } from "./helpers";

for (const name of ["basic-scene-setup", "colored-materials", "conditional-props"]) {
  test(`shows every step and variable of ${name}`, async ({ page }) => {
    const recipe = parse(readFileSync(path.join(ROOT, "recipes", `${name}.yaml`), "utf8"));
    await openRecipe(page, name);
    await expect(page.getByTestId("recipe-title")).toHaveText(name);
    expect(await stepNames(page)).toEqual(recipe.steps.map((s: { name: string }) => s.name));
    for (const step of recipe.steps) {
      const node = stepNode(page, step.name);
      await expect(node).toBeVisible();
      await expect(node).toContainText(step.tool);
      if (step.condition) await expect(node.locator(".badge-if")).toHaveAttribute("title", step.condition);
      if (step.on_error) await expect(node).toContainText(`on error: ${step.on_error}`);
    }
    const variables = Object.entries(recipe.variables ?? {});
    await expect(page.getByTestId("node-variable")).toHaveCount(variables.length);
    for (const [variable, value] of variables) {
      await expect(page.locator(`[data-testid="node-variable"][data-variable="${variable}"]`)).toContainText(typeof value === "string" ? JSON.stringify(value) : String(value));
    }
    await expect(page.getByTestId("validity")).toHaveText("✓ valid");
    await shot(page, `open-${name}`);
  });
}
