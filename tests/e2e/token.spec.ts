/**
 * With KILN_TOKEN set, a page asks for the token (/login), and the session cookie it sets carries
 * every later page, tRPC call and screenshot. A service of its own for this file.
 */
import { expect, test } from "@playwright/test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer, type KilnServer } from "../helpers/server";
import { ROOT, shot, stepNode } from "./helpers";

let kiln: KilnServer;
let project: string;
test.beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-e2e-token-"));
  cpSync(path.join(ROOT, "recipes"), path.join(project, "recipes"), { recursive: true });
  kiln = await startServer({ cwd: project, env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next", KILN_TOKEN: "e2e-secret", HOME: project } });
});
test.afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

test("asks for the access token, then lists, opens and runs recipes with it", async ({ page }) => {
  await page.goto(`${kiln.url}/recipes`);
  await expect(page).toHaveURL(/\/login\?next=%2Frecipes$/);
  await expect(page.getByLabel("Access token")).toBeVisible();
  await shot(page, "token-prompt");
  await page.getByLabel("Access token").fill("e2e-secret");
  await page.getByRole("button", { name: "Use token" }).click();
  // The first listing compiles the page and its tRPC route cold; a shared machine can take a while.
  await expect(page.locator('[data-recipe="basic-scene-setup"]')).toBeVisible({ timeout: 30_000 });

  await page.goto(`${kiln.url}/recipes/basic-scene-setup`);
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByTestId("run-confirm").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });
  const image = stepNode(page, "Take screenshot").getByTestId("screenshot");
  // Loaded with the session cookie (or, after the builder's own prompt, fetched with the header).
  await expect(image).toHaveAttribute("src", /^(blob:|\/screenshots\/)/);
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1280);
});
