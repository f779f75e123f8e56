/**
 * Every change says who, and undo is per person, over HTTP against the running service.
 * Invariants: operations, versions, recipe runs and branches record the caller (the person and
 * the client) and still show it after a restart; get_history, list_versions and list_recipe_runs
 * filter by person; undo and redo act on the caller's own steps (team mode: the person's;
 * personal mode: the client session's), and a step whose record someone else changed since is
 * refused with 409 UNDO_CONFLICT naming them, changing nothing. An MCP client's name and version
 * from `initialize` are recorded on its calls, and its MCP session is its undo session.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";

const RECIPE = `name: attributed
description: A step that says who ran it
steps:
  - name: Make C
    tool: create_gameobject
    params: { name: C, type: Empty, app: unity }
`;

describe("team mode: Ada and Ben", () => {
  let kiln: KilnServer;
  let team: Team;
  let ben: Record<string, string>;
  const ada = () => bearer(team.editor);
  const as = async (who: Record<string, string>, tool: string, params: unknown = {}) => post(`${kiln.url}/tools/${tool}`, params, who);
  const ok = async (who: Record<string, string>, tool: string, params: unknown = {}) => {
    const r = await as(who, tool, params);
    if (r.status !== 200) throw new Error(`${tool}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  const x = async (name: string) => (await ok(ada(), "get_scene", { app: "unity" })).objects.find((o: any) => o.name === name).position.x;

  beforeAll(async () => {
    kiln = await startServer({ env: { KILN_AUTH: "team" } });
    team = await setUpTeam(kiln);
    // Ben becomes an editor with a write token of his own.
    await ok(bearer(team.owner), "set_user_role", { user: "ben@example.com", role: "editor" });
    ben = bearer((await ok(bearer(team.owner), "create_token", { name: "Ben's laptop", scope: "write", user: "ben@example.com" })).token);
    await ok(bearer(team.owner), "create_gameobject", { name: "A", type: "Cube", app: "unity" });
    await ok(bearer(team.owner), "create_gameobject", { name: "B", type: "Cube", app: "unity" });
  }, 180_000);
  afterAll(async () => kiln?.stop());

  it("Ada's undo puts A back and leaves Ben's move of B", async () => {
    await ok(ada(), "set_transform", { target: "A", app: "unity", position: { x: 1 } });
    await ok(ben, "set_transform", { target: "B", app: "unity", position: { x: 2 } });
    const state = await ok(ada(), "get_undo_state");
    expect(state.undo).toMatchObject({ label: "move A", tools: ["set_transform"], by: { name: "Ada" } });
    const undone = await ok(ada(), "undo");
    expect(undone.tools).toEqual(["set_transform"]);
    expect(await x("A")).toBe(0);
    expect(await x("B")).toBe(2);
    // Ben's own undo is his move of B, not Ada's undo.
    expect((await ok(ben, "get_undo_state")).undo).toMatchObject({ label: "move B", by: { name: "Ben" } });
    await ok(ada(), "redo");
    expect(await x("A")).toBe(1);
  });

  it("after Ben moves A, Ada's undo is refused with 409 UNDO_CONFLICT naming Ben, and nothing changes", async () => {
    await ok(ben, "set_transform", { target: "A", app: "unity", position: { x: 3 } });
    const before = (await ok(ada(), "get_history", { limit: 1 })).entries[0].seq;
    const r = await as(ada(), "undo");
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("UNDO_CONFLICT");
    expect(r.body.error.message).toContain("Ben");
    expect(r.body.error.message).toContain('"A"');
    expect(r.body.error.details).toMatchObject({ record_name: "A", tool: "set_transform", by: { name: "Ben" } });
    expect(await x("A")).toBe(3);
    expect((await ok(ada(), "get_history", { limit: 1 })).entries[0].seq).toBe(before);
  });

  it("history names the person and the token, and filters by person", async () => {
    const { entries } = await ok(ada(), "get_history", { limit: 20 });
    const moveB = entries.find((e: any) => e.tool === "set_transform" && e.actor.name === "Ben");
    expect(moveB.actor).toMatchObject({ name: "Ben", client: "http", token: "Ben's laptop", user_id: team.ids.viewer });
    expect(moveB.actor.by).toBe('Ben via http (token "Ben\'s laptop")');
    const bens = (await ok(ada(), "get_history", { person: "Ben", limit: 50 })).entries;
    expect(bens.length).toBeGreaterThanOrEqual(2);
    expect(bens.every((e: any) => e.actor.name === "Ben")).toBe(true);
    expect((await ok(ada(), "get_history", { person: team.ids.editor, limit: 50 })).entries.every((e: any) => e.actor.name === "Ada")).toBe(true);
  });

  it("versions, diffs, branches and recipe runs say who, after a restart too", async () => {
    await ok(ada(), "save_version", { name: "Ada's layout" });
    await ok(ben, "set_transform", { target: "B", app: "unity", position: { y: 4 } });
    await ok(ben, "save_version", { name: "Ben's tweak" });
    await ok(ada(), "run_recipe", { yaml: RECIPE });
    await ok(ben, "create_branch", { name: "bens-idea" });
    await kiln.restart();
    const versions = (await ok(ada(), "list_versions")).versions;
    expect(versions.map((v: any) => [v.name, v.saved_by.name])).toEqual([["Ben's tweak", "Ben"], ["Ada's layout", "Ada"]]);
    expect((await ok(ada(), "list_versions", { person: "Ada" })).versions.map((v: any) => v.name)).toEqual(["Ada's layout"]);
    const diff = await ok(ada(), "diff_versions", { from: versions[1].version_id, to: versions[0].version_id });
    expect(diff.from_saved_by.name).toBe("Ada");
    expect(diff.to_saved_by.name).toBe("Ben");
    expect(diff.changed_by.map((a: any) => a.name)).toEqual(["Ben"]);
    const working = await ok(ada(), "diff_versions", { from: versions[0].version_id });
    expect(working.to_saved_by).toBeNull();
    expect(working.changed_by.map((a: any) => a.name)).toContain("Ada"); // the recipe's step
    const runs = (await ok(ada(), "list_recipe_runs")).runs;
    expect(runs[0].run_by).toMatchObject({ name: "Ada", client: "http" });
    expect((await ok(ada(), "list_recipe_runs", { person: "Ben" })).runs).toEqual([]);
    const step = (await ok(ada(), "get_history", { limit: 5, tool: "create_gameobject" })).entries[0];
    expect(step.source).toBe("recipe");
    expect(step.actor).toMatchObject({ name: "Ada", client: "recipe" });
    const branch = (await ok(ada(), "list_branches")).branches.find((b: any) => b.name === "bens-idea");
    expect(branch.created_by.name).toBe("Ben");
    // Ada's undo still knows her steps after the restart: the recipe's create of C.
    expect((await ok(ada(), "get_undo_state")).undo.label).toBe("create C");
  });
});

describe("personal mode: two sessions", () => {
  let kiln: KilnServer;
  const s1 = { "x-kiln-session": "tab-one" };
  const s2 = { "x-kiln-session": "tab-two" };
  const call = (tool: string, params: unknown, headers: Record<string, string>) => kiln.call(tool, params, { headers });
  const ok = async (tool: string, params: unknown, headers: Record<string, string>) => {
    const r = await call(tool, params, headers);
    if (r.status !== 200) throw new Error(`${tool}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  const x = async (name: string) => (await kiln.ok("get_scene", { app: "godot" })).objects.find((o: any) => o.name === name).position.x;

  beforeAll(async () => {
    kiln = await startServer();
    await kiln.ok("create_gameobject", { name: "A", type: "Cube", app: "godot" });
    await kiln.ok("create_gameobject", { name: "B", type: "Cube", app: "godot" });
  }, 120_000);
  afterAll(async () => kiln?.stop());

  it("each session undoes its own steps; another session's change to the same record is a 409", async () => {
    await ok("set_transform", { target: "A", app: "godot", position: { x: 1 } }, s1);
    await ok("set_transform", { target: "B", app: "godot", position: { x: 2 } }, s2);
    await ok("undo", {}, s1);
    expect(await x("A")).toBe(0);
    expect(await x("B")).toBe(2);
    await ok("redo", {}, s1);
    await ok("set_transform", { target: "A", app: "godot", position: { x: 3 } }, s2);
    const r = await call("undo", {}, s1);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("UNDO_CONFLICT");
    expect(r.body.error.details.by.session).toBe("tab-two");
    expect(await x("A")).toBe(3);
    // Session two's undo is its own last step: A back to 1.
    await ok("undo", {}, s2);
    expect(await x("A")).toBe(1);
  });

  it("entries logged before attribution read as unknown, and person \"unknown\" selects them", async () => {
    // What the migration leaves on older rows: the actor columns added as NULL.
    if (kiln.databaseUrl) return; // SQLite only: the file is edited while the service is stopped
    await kiln.kill("SIGTERM");
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(path.join(kiln.home, "kiln.db"));
    db.prepare(`UPDATE "Operation" SET "actorId" = NULL, "actorName" = NULL, "actorClient" = NULL, "actorClientName" = NULL, "actorToken" = NULL, "actorSession" = NULL WHERE "seq" <= 2`).run();
    db.close();
    await kiln.restart();
    const old = (await kiln.ok("get_history", { person: "unknown", limit: 10 })).entries;
    expect(old.map((e: any) => e.seq).sort()).toEqual([1, 2]);
    expect(old[0].actor).toEqual({ user_id: null, name: "unknown", client: null, client_name: null, token: null, session: null, by: "unknown" });
  });

  it("records the operating-system user and the client", async () => {
    const { entries } = await kiln.ok("get_history", { limit: 3 });
    expect(entries[0].actor).toMatchObject({ user_id: null, client: "http", session: "tab-two" });
    expect(entries[0].actor.name).not.toBe("unknown");
    expect(entries[0].actor.by).toBe(`${entries[0].actor.name} (http)`);
  });
});

describe("MCP: the client's name from initialize", () => {
  let kiln: KilnServer;
  beforeAll(async () => {
    kiln = await startServer();
  }, 120_000);
  afterAll(async () => kiln?.stop());

  it("history shows the MCP client's name and version, and its session undoes its own steps", async () => {
    const client = new Client({ name: "claude-desktop", title: "Claude Desktop", version: "0.9.2" });
    const transport = new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`));
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^mcp-/);
    await client.callTool({ name: "create_gameobject", arguments: { name: "FromClaude", type: "Empty", app: "blender" } });
    await kiln.ok("create_gameobject", { name: "FromCurl", type: "Empty", app: "blender" });
    const { entries } = await kiln.ok("get_history", { limit: 5, source: "mcp" });
    expect(entries[0].actor).toMatchObject({ client: "mcp", client_name: "Claude Desktop 0.9.2", session: transport.sessionId });
    expect(entries[0].actor.by).toMatch(/ via Claude Desktop 0\.9\.2$/);
    // The MCP session's undo removes its own object, not the later one made over HTTP.
    const undone = await client.callTool({ name: "undo", arguments: {} });
    expect(undone.isError).toBeFalsy();
    const names = (await kiln.ok("get_scene", { app: "blender" })).objects.map((o: any) => o.name);
    expect(names).toContain("FromCurl");
    expect(names).not.toContain("FromClaude");
    await client.close();
  });
});
