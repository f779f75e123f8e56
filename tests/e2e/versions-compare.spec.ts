/**
 * Acceptance of issue 28's versions and runs items, as a person does them, each with its time and
 * clicks printed (TASK lines): open the compare page of v001...v003 from its address, swipe, and
 * restore v001 (it says first what changes, and auto-saves nothing when nothing is unsaved; it is
 * off with the reason while a transaction is open); preview a version without restoring it; re-run
 * a recipe with the variables of an earlier run, seeing each step's inputs and outputs; /versions
 * and the builder at 390x844; the version list by keyboard; an h1 and a main landmark on every page
 * but /scene. The versions tasks run on a service of their own, so v001 is really the first version.
 */
import { expect, test, type Page } from "@playwright/test";
import { shot } from "./helpers";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
test.beforeAll(async () => {
  kiln = await startServer({ env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next" } });
  // v001: a ground, a sun and a cube; v002: the sun three times as bright; v003: a ball added, the cube moved.
  await kiln.ok("create_scene", { name: "Yard" });
  await kiln.ok("create_gameobject", { name: "Ground", type: "Plane", scale: { x: 10, y: 1, z: 10 } });
  await kiln.ok("create_light", { name: "Sun", type: "Directional", intensity: 1.2, rotation: { x: 50, y: -30, z: 0 } });
  await kiln.ok("create_gameobject", { name: "Crate", type: "Cube", position: { x: 0, y: 0.5, z: 0 } });
  await kiln.ok("save_version", { name: "a yard" });
  await kiln.ok("create_light", { name: "Sun", type: "Directional", intensity: 3, rotation: { x: 50, y: -30, z: 0 }, if_exists: "replace" });
  await kiln.ok("save_version", { name: "brighter sun" });
  await kiln.ok("create_gameobject", { name: "Ball", type: "Sphere", position: { x: 2, y: 0.5, z: 0 } });
  await kiln.ok("set_transform", { target: "Crate", position: { x: -1.5 } });
  await kiln.ok("save_version", { name: "a ball, the crate moved" });
});
test.afterAll(async () => { await kiln?.stop(); });

/** Prints a task's figures for the report: time from its first action to its outcome, and its clicks. */
function task(name: string) {
  const started = Date.now();
  let clicks = 0;
  return {
    click: () => void clicks++,
    done: (note = "") => console.log(`TASK ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s, ${clicks} click${clicks === 1 ? "" : "s"}${note ? ` (${note})` : ""}`),
  };
}

const rendered = (page: Page, testId = "renders-unity") => expect(page.getByTestId(testId)).toHaveAttribute("data-marks", /\d/, { timeout: 30_000 });

test("compare v001...v003 from its address, swipe, and restore v001", async ({ page }) => {
  const open = task("open the compare page of v001...v003 from its URL");
  await page.goto(`${kiln.url}/versions/compare/v001...v003`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Compare v001 … v003");
  await rendered(page);
  open.done("address typed; renders compared");

  // The changes: the sun's intensity as a sub-field, the ball added with its properties.
  await expect(page.getByTestId("diff-Sun-light.intensity")).toContainText("1.2");
  await expect(page.getByTestId("diff-Sun-light.intensity")).toContainText("3");
  const ball = page.getByTestId("diff-Ball-added");
  await expect(ball).toContainText("type");
  await expect(ball).toContainText("Sphere");
  await expect(ball).toContainText("(2, 0.5, 0)");
  await expect(page.getByTestId("diff-Crate-position")).toContainText("(-1.5, 0.5, 0)");
  // The brighter sun lit the whole ground: that is a lighting change in the heat map, not one box
  // round the image; the boxes are where the ball and the crate are and were.
  const figure = page.getByTestId("renders-unity");
  expect(Number(await figure.getAttribute("data-lighting"))).toBeGreaterThan(0.2);
  const boxes = await figure.locator(".diff-pair .diff-frame").first().locator("rect").evaluateAll((rs) => rs.map((r) => Number(r.getAttribute("width")) * Number(r.getAttribute("height"))));
  expect(boxes.length).toBeGreaterThanOrEqual(2);
  for (const area of boxes) expect(area).toBeLessThan(480 * 270 * 0.1);
  // 2-up at full width: each side about half the page.
  const before = (await figure.getByTestId("render-before").boundingBox())!;
  expect(before.width).toBeGreaterThan(560);
  await page.screenshot({ path: "tests/output/e2e/compare-2up.png", fullPage: true });

  const swipe = task("swipe");
  await figure.getByTestId("mode-swipe").click();
  swipe.click();
  const stage = figure.getByTestId("diff-stage");
  await stage.scrollIntoViewIfNeeded();
  const box = (await stage.boundingBox())!;
  expect(box.width).toBeGreaterThan(1100); // the whole width of the page
  const y = Math.min(box.y + box.height / 2, 700);
  await page.mouse.move(box.x + box.width * 0.5, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, y, { steps: 8 });
  await page.mouse.up();
  await expect(figure.getByTestId("diff-slider")).toHaveValue("30");
  await expect(stage.getByTestId("render-before")).toHaveAttribute("style", /inset\(0(px)? 70% 0(px)? 0(px)?\)/);
  swipe.done("one click on Swipe, one drag");
  await shot(page, "compare-swipe");
  // The slider is the keyboard's way.
  await figure.getByTestId("diff-slider").focus();
  await page.keyboard.press("ArrowRight");
  await expect(figure.getByTestId("diff-slider")).toHaveValue("31");
  await figure.getByTestId("mode-onion").click();
  await figure.getByTestId("diff-slider").fill("50");
  await shot(page, "compare-onion");
  await figure.getByTestId("mode-heat").click();
  await expect(figure.getByTestId("render-heat")).toBeVisible();
  await figure.scrollIntoViewIfNeeded();
  await shot(page, "compare-heat");

  // While a transaction is open, restore is off and says why.
  await kiln.ok("begin_transaction", { name: "e2e hold" });
  const restoreButton = page.getByTestId("side-before").getByTestId("restore-v001");
  await expect(restoreButton).toBeDisabled();
  await expect(page.getByTestId("side-before").getByTestId("gate-reason")).toContainText("e2e hold");
  await restoreButton.scrollIntoViewIfNeeded();
  await shot(page, "compare-restore-gated");
  await kiln.ok("commit_transaction");
  await expect(restoreButton).toBeEnabled();

  const restore = task("restore v001");
  const versions = (await kiln.ok("list_versions", {})).total;
  await restoreButton.click();
  restore.click();
  const plan = page.getByTestId("restore-plan");
  await expect(plan).toContainText("becomes v001");
  await expect(plan.getByTestId("restore-app-unity")).toContainText("deletes 1 object (Ball)");
  await expect(plan.getByTestId("restore-app-unity")).toContainText("Sun: light.intensity");
  await expect(plan).toContainText("blender, godot: nothing changes");
  await expect(plan.getByTestId("restore-autosave")).toContainText("no automatic version");
  await shot(page, "compare-restore-dialog");
  await page.getByTestId("restore-confirm").click();
  restore.click();
  await expect(page.getByTestId("message")).toHaveText("Restored v001");
  restore.done("Restore, then Restore v001 in the dialog");
  const names = (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name);
  expect(names).not.toContain("Ball");
  expect((await kiln.ok("list_versions", {})).total).toBe(versions); // nothing was unsaved: no auto-save
});

test("a version is previewed without restoring it, one click from its row", async ({ page }) => {
  await kiln.ok("restore_version", { version_id: "v001" });
  const working = JSON.stringify(await kiln.ok("get_scene", {}));
  await page.goto(`${kiln.url}/versions`);
  const t = task("compare a version from the list");
  await page.getByTestId("compare-v003").click();
  t.click();
  await expect(page).toHaveURL(/\/versions\/compare\/v003\.\.\.working$/);
  await rendered(page);
  t.done("the row's compare link");
  await page.goto(`${kiln.url}/versions/v003`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("v003");
  await expect(page.getByTestId("preview-objects-unity")).toContainText("Ball");
  await expect(page.getByTestId("preview-render-unity")).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => page.getByTestId("preview-render-unity").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(960);
  await shot(page, "version-preview");
  expect(JSON.stringify(await kiln.ok("get_scene", {}))).toBe(working); // nothing was restored
});

test("the version list moves with the arrow keys, as one Tab stop", async ({ page }) => {
  await page.goto(`${kiln.url}/versions`);
  const list = page.getByTestId("version-graph");
  await expect(list.locator('[role="option"][tabindex="0"]')).toHaveCount(1);
  await page.getByTestId("working-row").focus();
  const t = task("keyboard: pick v002 in the version list and open its preview");
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("version-v003")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByTestId("version-v003")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("version-v002")).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.getByTestId("version-v001")).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Home");
  await expect(page.getByTestId("working-row")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(list.locator('[role="option"][tabindex="0"]')).toHaveAttribute("data-row", "v002");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("preview-link")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/versions\/v002$/);
  t.done("no clicks: 7 keys");
});

test("phones: /versions, the compare page and the builder at 390x844", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${kiln.url}/versions`);
  for (const id of ["v001", "v002", "v003"]) {
    const name = (await page.getByTestId(`version-${id}`).locator(".graph-name").boundingBox())!;
    expect(name.width, `${id}'s name`).toBeGreaterThan(60);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "phone-versions");
  await page.goto(`${kiln.url}/versions/compare/v001...v003`);
  await rendered(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "tests/output/e2e/phone-compare.png", fullPage: true });

  await page.goto(`${kiln.url}/recipes/basic-scene-setup`);
  await expect(page.getByTestId("start-node")).toBeVisible();
  const canvas = (await page.getByTestId("canvas").boundingBox())!;
  expect(canvas.width).toBeGreaterThanOrEqual(380);
  expect(canvas.height).toBeGreaterThan(844 * 0.6);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, "phone-builder");
  await page.getByTestId("toggle-panel").click();
  await expect(page.locator("#inspector")).toBeVisible();
  const open = (await page.getByTestId("canvas").boundingBox())!;
  expect(open.height).toBeGreaterThan(200);
  await shot(page, "phone-builder-panel");
  await page.getByRole("button", { name: "Hide the panel" }).click();
  await expect(page.locator("#inspector")).toBeHidden();
});

test("every page but /scene has one h1 and a main landmark", async ({ page }) => {
  for (const path of ["/", "/versions", "/versions/compare/v001...v002", "/versions/v001", "/versions/compare/nonsense", "/pipeline", "/recipes", "/recipes/basic-scene-setup", "/recipes/new", "/docs/api"]) {
    await page.goto(`${kiln.url}${path}`);
    await expect(page.getByRole("main"), path).toHaveCount(1);
    await expect(page.getByRole("heading", { level: 1 }), path).toHaveCount(1);
  }
});
