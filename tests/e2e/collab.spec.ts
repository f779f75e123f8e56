/**
 * Presence and locks in the browser, team mode (docs/teams.md, "Locks" and "Presence"): Ada
 * (editor) and Ben (viewer) in their own browser contexts. Ada's edits appear in Ben's /scene;
 * each sees the other's initials on the bar and at the object they have selected; Ada selecting
 * Box in the inspector locks it, so Ben (made an editor) moving Box gets 423 naming Ada; when
 * Ada's tab closes, her lock goes and Ben's move goes through.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";
import { shot } from "./helpers";

let kiln: KilnServer;
let team: Team;
let project: string;
test.beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-e2e-collab-"));
  kiln = await startServer({ cwd: project, env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next", KILN_AUTH: "team", HOME: project } });
  team = await setUpTeam(kiln);
  const made = await post(`${kiln.url}/tools/create_gameobject`, { name: "Box", type: "Cube" }, bearer(team.editor));
  expect(made.status).toBe(200);
});
test.afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

async function signIn(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  await page.goto(`${kiln.url}/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: /sign in/i }).click();
  await expect(page.getByTestId("signed-in-as")).toBeVisible();
  return page;
}

test("presence, a lock taken in the inspector, 423 naming the holder, and the lock gone with the tab", async ({ browser }) => {
  const ada = await signIn(browser, "ada@example.com", "Ada password 1");
  const ben = await signIn(browser, "ben@example.com", "Ben password 1");
  await ada.goto(`${kiln.url}/scene`);
  await ben.goto(`${kiln.url}/scene`);
  await expect(ada.getByRole("treeitem", { name: /Box/ })).toBeVisible();

  // Presence: each sees the other's initials on the bar.
  await expect(ada.locator('.presence-bar .initials[title^="Ben (browser)"]')).toBeVisible();
  await expect(ben.locator('.presence-bar .initials[title^="Ada (browser)"]')).toBeVisible();

  // Ada selects Box: the inspector holds a lock on it; Ben sees her at Box, in the tree and the view.
  await ada.getByRole("treeitem", { name: /Box/ }).click();
  await expect(ben.getByRole("treeitem", { name: /Box/ }).getByLabel("Ada", { exact: true })).toBeVisible();
  await expect(ben.getByRole("treeitem", { name: /Box/ }).getByLabel("locked by Ada")).toBeVisible();
  await expect(ben.locator('.view-presence[data-object="Box"]')).toBeVisible();

  // Ada's edit appears in Ben's view.
  await ada.getByLabel("position x").fill("2");
  await ada.getByLabel("position x").press("Enter");
  await ben.getByRole("treeitem", { name: /Box/ }).click();
  await expect(ben.getByLabel("position x")).toHaveValue("2");
  await expect(ben.locator(".lock-notice")).toContainText("Locked by Ada");
  await shot(ben, "collab-ben-sees-ada-lock");
  await shot(ada, "collab-ada-editing-box");

  // Ben, made an editor, moves Box: 423 naming Ada, and Box stays.
  expect((await post(`${kiln.url}/tools/set_user_role`, { user: "ben@example.com", role: "editor" }, bearer(team.owner))).status).toBe(200);
  await ben.reload();
  await ben.getByRole("treeitem", { name: /Box/ }).click();
  await ben.getByLabel("position x").fill("5");
  await ben.getByLabel("position x").press("Enter");
  await expect(ben.locator(".studio-notice")).toContainText('The object "Box" is locked by Ada');
  const forced = await ben.evaluate(async () => {
    const r = await fetch("/api/trpc/tools.set_transform", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ target: "Box", position: { x: 6 } }) });
    return { status: r.status, body: await r.json() };
  });
  expect(forced.status).toBe(423);
  expect(forced.body.error.data.kiln.message).toContain("locked by Ada");
  await shot(ben, "collab-ben-refused");

  // Ada leaves: her tab's stream goes, and the lock with it; Ben's move goes through.
  await ada.context().close();
  await expect(ben.locator(".lock-notice")).toHaveCount(0, { timeout: 20_000 });
  // Her Studio tab has left the bar (the agent that made Box with her token stays until it is idle).
  await expect(ben.locator('.presence-bar .initials[title^="Ada (browser)"]')).toHaveCount(0);
  await ben.getByLabel("position x").fill("5");
  await ben.getByLabel("position x").press("Enter");
  await expect(ben.locator(".studio-notice")).toHaveCount(0);
  const scene = await post(`${kiln.url}/tools/get_scene`, {}, bearer(team.owner));
  expect(scene.body.result.objects.find((o: { name: string }) => o.name === "Box").position.x).toBe(5);
  await shot(ben, "collab-lock-gone");
});

test("the builder saves with the revision it loaded: someone saved in between, and the merge keeps both", async ({ browser }) => {
  await post(`${kiln.url}/tools/set_user_role`, { user: "ben@example.com", role: "editor" }, bearer(team.owner));
  const benToken = (await post(`${kiln.url}/tools/create_token`, { name: "Ben's script", scope: "write", user: "ben@example.com" }, bearer(team.owner))).body.result.token;
  const v1 = "name: shared\ndescription: two steps\nsteps:\n  - name: First\n    tool: create_gameobject\n    params:\n      name: A\n      type: Cube\n  - name: Second\n    tool: create_gameobject\n    params:\n      name: B\n      type: Cube\n";
  expect((await post(`${kiln.url}/tools/save_recipe`, { name: "shared", yaml: v1 }, bearer(team.editor))).status).toBe(200);

  const ada = await signIn(browser, "ada@example.com", "Ada password 1");
  await ada.goto(`${kiln.url}/recipes/shared`);
  await expect(ada.getByTestId("recipe-title")).toHaveText(/shared/);

  // Ben saves a change to the second step meanwhile.
  const loaded = (await post(`${kiln.url}/tools/get_recipe_info`, { recipe: "shared" }, bearer(benToken))).body.result;
  const v2 = v1.replace("name: B\n      type: Cube", "name: B\n      type: Sphere");
  expect((await post(`${kiln.url}/tools/save_recipe`, { name: "shared", yaml: v2, revision: loaded.revision }, bearer(benToken))).status).toBe(200);

  // Ada changes the first step and saves: Kiln refuses, naming Ben, and the builder offers the merge.
  await ada.getByRole("button", { name: "YAML" }).click();
  const text = ada.getByRole("textbox", { name: "Recipe YAML text" });
  await text.fill(v1.replace("name: A\n      type: Cube", "name: A\n      type: Plane"));
  await expect(ada.getByLabel("unsaved changes")).toBeVisible();
  await expect(ada.getByTestId("canvas")).toContainText("Plane");
  await ada.getByRole("button", { name: "Save", exact: true }).click();
  const dialog = ada.getByRole("dialog");
  await expect(dialog).toContainText("Someone saved this recipe");
  await expect(dialog).toContainText("Ben");
  await expect(dialog).toContainText("without a clash");
  await shot(ada, "collab-recipe-saved-in-between");
  await dialog.getByRole("button", { name: "Save the merge" }).click();
  await expect.poll(async () => (await post(`${kiln.url}/tools/get_recipe_info`, { recipe: "shared" }, bearer(team.owner))).body.result.recipe.steps.map((s: { params: { type: string } }) => s.params.type))
    .toEqual(["Plane", "Sphere"]);
});
