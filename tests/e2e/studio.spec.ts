/**
 * Acceptance of the studio pages (issue 17, part B): /versions (save two versions, diff with
 * fields and marked before/after renders, restore, branch, switch, transaction commit and
 * rollback), /pipeline (start a transfer, download its file), the recipe builder's run history
 * after a reload and its guard against leaving with unsaved edits. One service for all steps.
 */
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { shot } from "./helpers";

const APP = "blender";
const SCENE = "StudioE2E";

async function tool(request: APIRequestContext, name: string, params: Record<string, unknown> = {}) {
  const r = await request.post(`/tools/${name}`, { data: params });
  const body = await r.json();
  expect(body.ok, `${name}: ${JSON.stringify(body.error)}`).toBe(true);
  return body.result;
}

async function positionOf(request: APIRequestContext, object: string) {
  const scene = await tool(request, "get_scene", { app: APP, scene: SCENE });
  return (scene.objects as { name: string; position: unknown }[]).find((o) => o.name === object)?.position;
}

async function saveFromPage(page: Page, name: string) {
  await page.getByTestId("working-row").click();
  await page.getByTestId("save-name").fill(name);
  await page.getByTestId("save-version").click();
  await expect(page.getByTestId("message")).toHaveText(`Saved "${name}"`);
  return page.getByTestId("version-graph").locator(".graph-row", { hasText: name }).first().getAttribute("data-testid").then((id) => id!.replace("version-", ""));
}

test("versions: save two versions, diff them with marked renders, restore and branch from the page", async ({ page, request }) => {
  await tool(request, "create_scene", { name: SCENE, app: APP, if_exists: "reuse" });
  await tool(request, "create_gameobject", { name: "DiffCube", type: "Cube", app: APP, scene: SCENE, position: { x: -1.5, y: 0, z: 0 } });
  await page.goto("/versions");
  await expect(page.getByRole("navigation", { name: "Kiln" }).getByRole("link", { name: "Versions" })).toHaveAttribute("aria-current", "page");
  const before = await saveFromPage(page, "e2e before");
  await tool(request, "set_transform", { target: "DiffCube", app: APP, scene: SCENE, position: { x: 1.5, y: 0, z: 0 } });
  await expect(page.getByTestId("unsaved")).toBeVisible(); // the page heard of the change without a reload
  const after = await saveFromPage(page, "e2e after");

  // The selected version's "Changes since <parent>" is the compare page of the two.
  await page.getByTestId(`version-${after}`).click();
  await page.getByRole("link", { name: `Changes since ${before}` }).click();
  await expect(page).toHaveURL(new RegExp(`/versions/compare/${before}\\.\\.\\.${after}$`));
  const row = page.getByTestId("diff-DiffCube-position");
  await expect(row).toContainText("-1.5");
  await expect(row).toContainText("1.5");
  const renders = page.getByTestId(`renders-${APP}`);
  await expect(renders).toHaveAttribute("data-marks", /[1-9]/, { timeout: 60_000 });
  // The renders differ, and only inside the boxes drawn where the cube was and is.
  const check = await renders.evaluate((fig) => {
    const [a, b] = ["render-before", "render-after"].map((id) => fig.querySelector<HTMLCanvasElement>(`[data-testid=${id}]`)!).map((c) => c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data);
    let differ = 0, left = 0, right = 0;
    for (let i = 0; i < a.length; i += 4) {
      if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) <= 24) continue;
      differ++;
      if ((i / 4) % 960 < 480) left++; else right++;
    }
    return { differ, left, right, pixels: Number(fig.getAttribute("data-changed-pixels")) };
  });
  expect(check.pixels).toBeGreaterThan(200);
  expect(check.left).toBeGreaterThan(50); // where the cube was
  expect(check.right).toBeGreaterThan(50); // where it is now
  await shot(page, "studio-versions-diff");

  await page.getByTestId("side-before").getByTestId(`restore-${before}`).click();
  await expect(page.getByTestId("restore-plan")).toContainText("DiffCube: position");
  await page.getByTestId("restore-confirm").click();
  await expect(page.getByTestId("message")).toHaveText(`Restored ${before}`);
  expect(await positionOf(request, "DiffCube")).toMatchObject({ x: -1.5 });

  await page.goto("/versions");
  await page.getByTestId(`version-${before}`).click();
  const branch = `e2e-${Date.now()}`;
  await page.getByTestId("branch-name").fill(branch);
  await page.getByTestId("create-branch").click();
  await expect(page.getByTestId(`branch-${branch}`)).toBeVisible();
  await page.getByTestId(`switch-${branch}`).click();
  await expect(page.getByTestId(`branch-${branch}`)).toContainText("current");
  expect((await tool(request, "list_branches")).current).toBe(branch);
  await shot(page, "studio-versions-branch");
  await page.getByTestId("switch-main").click();
  await expect(page.getByTestId("branch-main")).toContainText("current");
});

test("transactions: commit and roll back from the page; the log shows sources and filters", async ({ page, request }) => {
  await tool(request, "create_scene", { name: SCENE, app: APP, if_exists: "reuse" });
  await page.goto("/versions");
  await page.getByTestId("tx-name").fill("e2e commit");
  await page.getByTestId("tx-begin").click();
  // The page's begin must be in before the test's own call, or that call lands outside it.
  await expect(page.getByTestId("transaction")).toHaveAttribute("data-status", "open");
  await tool(request, "create_gameobject", { name: "TxKept", type: "Sphere", app: APP, scene: SCENE, if_exists: "replace" });
  await expect(page.getByTestId("tx-ops")).toContainText("create_gameobject");
  await shot(page, "studio-transaction-open");
  await page.getByTestId("tx-commit").click();
  await expect(page.getByTestId("transaction")).toHaveAttribute("data-status", "none");
  await expect(page.getByTestId("transaction")).toContainText("committed");

  await page.getByTestId("tx-name").fill("e2e rollback");
  await page.getByTestId("tx-begin").click();
  // The page's begin must be in before the test's own call, or that call lands outside it.
  await expect(page.getByTestId("transaction")).toHaveAttribute("data-status", "open");
  await tool(request, "create_gameobject", { name: "TxDropped", type: "Cube", app: APP, scene: SCENE });
  await expect(page.getByTestId("tx-ops")).toContainText("create_gameobject");
  page.once("dialog", (d) => void d.accept());
  await page.getByTestId("tx-rollback").click();
  await expect(page.getByTestId("transaction")).toContainText("rolled back");
  const names = (await tool(request, "list_objects", { app: APP, scene: SCENE })).objects.map((o: { name: string }) => o.name);
  expect(names).toContain("TxKept");
  expect(names).not.toContain("TxDropped");

  await tool(request, "set_transform", { target: "TxKept", app: APP, scene: SCENE, position: { x: 0, y: 2, z: 0 } });
  await page.getByTestId("filter-source").selectOption("http");
  await page.getByTestId("filter-tool").fill("set_transform");
  await expect(page.getByTestId("op-row").first()).toContainText("set_transform");
  // Until the filtered list arrives the page keeps showing the previous one, whose newest row may
  // be this same set_transform: wait for every row to match, not just the first.
  await expect(page.getByTestId("op-row").filter({ hasNotText: "set_transform" })).toHaveCount(0);
  for (const text of await page.getByTestId("op-row").allTextContents()) expect(text).toMatch(/set_transform.*http/);
  await shot(page, "studio-operation-log");
});

test("home leads to the pipeline; start a transfer from the form and download its file", async ({ page, request }) => {
  await tool(request, "create_scene", { name: SCENE, app: APP, if_exists: "reuse" });
  await tool(request, "create_gameobject", { name: "ShipCrate", type: "Cube", app: APP, scene: SCENE, if_exists: "replace" });
  await tool(request, "open_scene", { name: SCENE, app: APP });
  // Home: the dashboard leads a newcomer to the scene, a sample recipe and connecting an app.
  await page.goto("/");
  const start = page.getByRole("region", { name: "New here? Three steps" });
  await expect(start.getByRole("link", { name: "Open the scene" })).toHaveAttribute("href", "/scene");
  await expect(start.getByRole("link", { name: "Run a sample recipe" })).toHaveAttribute("href", "/recipes/basic-scene-setup");
  await shot(page, "studio-home");
  // It follows changes made elsewhere without a reload (the operation count, an app's objects).
  const operations = page.locator("dt:text-is('Operations') + dd");
  const seen = Number(await operations.textContent());
  await tool(request, "create_gameobject", { name: "HomeWatch", type: "Cube", app: APP, scene: SCENE, if_exists: "replace" });
  await expect.poll(async () => Number(await operations.textContent()), { timeout: 30_000 }).toBeGreaterThan(seen);
  await page.getByRole("navigation", { name: "Kiln" }).getByRole("link", { name: "Pipeline" }).click();
  await expect(page).toHaveURL(/\/pipeline$/);
  await expect(page.getByTestId(`app-${APP}`)).toContainText("embedded");
  await page.getByTestId("transfer-source").selectOption(APP);
  await page.getByTestId("transfer-asset").selectOption("ShipCrate");
  await page.getByTestId("transfer-target").selectOption("unity");
  await page.getByTestId("transfer-format").selectOption("gltf");
  await page.getByTestId("transfer-start").click();
  await expect(page.getByTestId("message")).toContainText("ShipCrate → unity as gltf", { timeout: 30_000 });
  const link = page.getByTestId("transfer-row").filter({ hasText: "ShipCrate" }).first().getByTestId("transfer-download");
  await expect(link).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const file = await download.path();
  const { readFileSync } = await import("node:fs");
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 4).toString()).toBe("glTF"); // a GLB file
  expect(download.suggestedFilename()).toMatch(/\.glb$/);
  await shot(page, "studio-pipeline");
  // Nothing outside the transfer's own file is served.
  expect((await request.get("/transfers/..%2F..%2Fetc/file")).status()).toBe(404);
});

test("builder: run history survives a reload, wheel scrolls and Ctrl+wheel zooms, leaving with unsaved edits asks first", async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 720 });
  await page.goto("/recipes/basic-scene-setup");
  await expect(page.getByTestId("start-node")).toBeVisible();
  await page.getByRole("button", { name: "▶ Run" }).click();
  await page.getByTestId("run-confirm").click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded", { timeout: 60_000 });

  await page.reload();
  await expect(page.getByTestId("start-node")).toBeVisible();
  const history = page.getByTestId("run-history");
  await expect(history.getByTestId("run-history-item").first()).toContainText("succeeded");
  await history.getByTestId("run-open").first().click();
  await expect(page.getByTestId("run-status")).toHaveAttribute("data-phase", "succeeded");
  // The side panel is wholly in view at 1024 px.
  const box = (await page.locator("#inspector").boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(1024);
  await shot(page, "studio-builder-history-1024");

  // The wheel scrolls the canvas; Ctrl + wheel zooms (as n8n).
  const viewport = () => page.locator(".react-flow__viewport").evaluate((v) => new DOMMatrix(getComputedStyle(v).transform));
  const canvas = (await page.getByTestId("canvas").boundingBox())!;
  await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height - 40);
  const start = await viewport();
  await page.mouse.wheel(0, 300);
  await expect.poll(async () => (await viewport()).f).toBeLessThan(start.f - 100);
  expect((await viewport()).a).toBeCloseTo(start.a, 5);
  await page.keyboard.down("Control");
  await page.mouse.wheel(0, -300);
  await page.keyboard.up("Control");
  await expect.poll(async () => (await viewport()).a).toBeGreaterThan(start.a * 1.05);

  // An unsaved edit: the back link, the navigation bar and Back all ask; dismissing stays.
  await page.locator("#r-description").fill("edited, not saved");
  const asked: string[] = [];
  page.on("dialog", (d) => { asked.push(d.type()); void d.dismiss(); });
  await page.getByRole("link", { name: "← Recipes" }).click();
  await page.getByRole("navigation", { name: "Kiln" }).getByRole("link", { name: "Versions" }).click();
  await page.goBack();
  await expect.poll(() => asked.length).toBe(3);
  expect(asked.every((t) => t === "confirm")).toBe(true);
  await expect(page).toHaveURL(/\/recipes\/basic-scene-setup$/);
  await expect(page.locator("#r-description")).toHaveValue("edited, not saved");
});

test("on a phone (390 px) no page scrolls sideways, the scene view keeps its width, nothing asked for is missing", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // ...and no page asks for anything that is not there (the browser's icon request was a 404 on each).
  const missing: string[] = [];
  page.on("response", (r) => { if (r.status() >= 400) missing.push(`${r.status()} ${r.url()}`); });
  // The browser's own requests (the icon) show only as console errors.
  page.on("console", (m) => { if (m.type() === "error" && m.text().startsWith("Failed to load resource")) missing.push(`${m.text()} ${m.location().url}`); });
  for (const path of ["/", "/scene", "/versions", "/pipeline", "/recipes", "/recipes/basic-scene-setup"]) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
    // The bar's five links are all in view.
    for (const label of ["Home", "Scene", "Versions", "Pipeline", "Recipes"]) {
      const box = (await page.getByRole("navigation", { name: "Kiln" }).getByRole("link", { name: label, exact: true }).boundingBox())!;
      expect(box.x + box.width, `${path}: ${label}`).toBeLessThanOrEqual(390);
    }
  }
  expect(missing).toEqual([]);
  await page.goto("/scene");
  const view = (await page.locator(".studio-view canvas").boundingBox())!;
  expect(view.width).toBeGreaterThanOrEqual(380);
  expect(view.height).toBeGreaterThan(300);
  await shot(page, "studio-scene-phone");
});

test("versions: a diff that spans two scenes of an app says which scene each object is in and draws both", async ({ page, request }) => {
  for (const scene of ["DiffA", "DiffB"]) {
    await tool(request, "create_scene", { name: scene, app: "godot", if_exists: "reuse" });
    await tool(request, "create_gameobject", { name: `Base${scene}`, type: "Cube", app: "godot", scene, if_exists: "replace" });
  }
  await tool(request, "save_version", { name: "two scenes" });
  await tool(request, "create_gameobject", { name: "NewInA", type: "Sphere", app: "godot", scene: "DiffA", position: { x: 1.5, y: 0.5, z: 0 } });
  await tool(request, "create_gameobject", { name: "NewInB", type: "Cube", app: "godot", scene: "DiffB", position: { x: -1.5, y: 0.5, z: 0 } });
  // Keyframes read as their times, not as JSON.
  for (const time of [0, 1]) await tool(request, "set_keyframe", { app: "godot", scene: "DiffA", target: "BaseDiffA", time });
  // A scene made after the version: its "before" side is a note, not a render that cannot exist.
  await tool(request, "create_scene", { name: "DiffNew", app: "godot" });
  await tool(request, "create_gameobject", { name: "InNewScene", type: "Cube", app: "godot", scene: "DiffNew" });
  const failed: string[] = [];
  page.on("response", (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  await page.goto("/versions");
  const table = page.getByTestId("diff-table-godot");
  await expect(table.locator("th").nth(1)).toHaveText("Scene / name");
  await expect(table.locator("tr", { hasText: "NewInA" })).toContainText("DiffA / NewInA");
  await expect(table.locator("tr", { hasText: "NewInB" })).toContainText("DiffB / NewInB");
  await expect(page.getByTestId("diff-BaseDiffA-keyframes").locator("td.diff-new")).toHaveText("2 keys at 0, 1 s");
  // One pair of renders per scene, named, each with its change boxed.
  const section = page.locator("section.diff-app", { has: table });
  await expect(section.locator("figure")).toHaveCount(3);
  for (const scene of ["DiffA", "DiffB"])
    await expect(section.locator("figure", { hasText: `${scene}:` })).toHaveAttribute("data-marks", /[1-9]/, { timeout: 60_000 });
  await expect(section.locator("figure", { hasText: "DiffNew:" })).toContainText("the scene is new at working");
  expect(failed).toEqual([]);
  await shot(page, "studio-diff-two-scenes");
});
