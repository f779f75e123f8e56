/**
 * Every change says who, in the Studio, on a team-mode service of its own: Ada works through an
 * MCP client ("Claude Desktop 0.9.2") with her token, Ben over HTTP with his. Signed in as Ada,
 * `/versions` shows who saved each version and who made each operation, the recipe's run history
 * who ran it, and the scene's Undo says what Ada's undo will undo: her own last step, not Ben's
 * later one.
 */
import { expect, test } from "@playwright/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";
import { shot } from "./helpers";

const RECIPE = `name: attributed
description: A step that says who ran it
steps:
  - name: Make a lamp
    tool: create_light
    params: { name: Lamp, type: Point, app: unity, if_exists: reuse }
`;

let kiln: KilnServer;
let project: string;
let team: Team;
test.beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-e2e-attribution-"));
  kiln = await startServer({ cwd: project, env: { KILN_NEXT_DIST: process.env.KILN_NEXT_DIST ?? ".next", KILN_AUTH: "team", HOME: project } });
  team = await setUpTeam(kiln);
});
test.afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

async function ok(headers: Record<string, string>, tool: string, params: unknown) {
  const r = await post(`${kiln.url}/tools/${tool}`, params, headers);
  if (r.status !== 200) throw new Error(`${tool}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
}

test("versions, the operation log, run history and Undo name the person and the client", async ({ page }) => {
  await ok(bearer(team.owner), "set_user_role", { user: "ben@example.com", role: "editor" });
  const ben = bearer((await ok(bearer(team.owner), "create_token", { name: "Ben's laptop", scope: "write", user: "ben@example.com" })).token);
  await ok(ben, "create_gameobject", { name: "Box", type: "Cube", app: "unity" });
  await ok(ben, "save_recipe", { name: "attributed", yaml: RECIPE });

  // Ada, through her MCP client with her token.
  const claude = new Client({ name: "claude-desktop", title: "Claude Desktop", version: "0.9.2" });
  await claude.connect(new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`), { requestInit: { headers: bearer(team.editor) } }));
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await claude.callTool({ name, arguments: args });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  };
  await call("run_recipe", { recipe: "attributed" });
  await call("set_transform", { target: "Box", app: "unity", position: { x: 2 } });
  await call("save_version", { name: "Ada's layout" });
  await claude.close();
  await ok(ben, "create_gameobject", { name: "Crate", type: "Cube", app: "unity" }); // Ben's, after Ada's

  // Ada signs in to the Studio.
  await page.goto(`${kiln.url}/sign-in`);
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password").fill("Ada password 1");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toHaveText("Ada");

  await page.goto(`${kiln.url}/versions`);
  await expect(page.getByTestId("version-by").first()).toHaveText("Ada via Claude Desktop 0.9.2");
  const log = page.getByTestId("op-log");
  await expect(log.getByTestId("op-by").first()).toHaveText(/^Ben via http \(token "Ben's laptop"\)$/);
  await expect(log.getByTestId("op-by").filter({ hasText: "Ada via Claude Desktop 0.9.2" }).first()).toBeVisible();
  await page.getByTestId("filter-person").fill("Ada");
  await expect(log.getByTestId("op-by").first()).toHaveText("Ada via Claude Desktop 0.9.2");
  await expect(log.getByTestId("op-by").filter({ hasText: "Ben" })).toHaveCount(0);
  await shot(page, "attribution-versions");

  await page.goto(`${kiln.url}/recipes/attributed`);
  await expect(page.getByTestId("run-by").first()).toHaveText("Ada via Claude Desktop 0.9.2");
  await shot(page, "attribution-run-history");

  // Ada's undo is her move of Box, although Ben created Crate after it.
  await page.goto(`${kiln.url}/scene?app=unity`);
  await expect(page.getByTestId("undo-next")).toHaveText("Undo: move Box, just now");
  await expect(page.getByTestId("undo-button")).toHaveAttribute("title", "Undo: move Box, just now (Ctrl+Z)");
  await shot(page, "attribution-undo-label");
  await page.getByTestId("undo-button").click();
  await expect.poll(async () => (await ok(ben, "get_scene", { app: "unity" })).objects.find((o: any) => o.name === "Box").position.x).toBe(0);
  expect((await ok(ben, "get_scene", { app: "unity" })).objects.some((o: any) => o.name === "Crate")).toBe(true);
});
