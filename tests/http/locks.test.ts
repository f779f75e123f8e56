/**
 * Soft locks over HTTP, tRPC, MCP and recipes, in team mode (docs/teams.md, "Locks"). Invariants:
 * a change by anyone but the holder to a locked object, material, scene (and so its objects) or
 * recipe is 423 LOCKED naming the holder and since when, and changes nothing, on every surface;
 * the holder may change it; only the holder unlocks it, or an owner with force (audit-logged);
 * viewers cannot lock; locks survive a restart; a lock goes when its holder's event stream (the
 * Studio tab) goes; presence lists who is here and streams it on /events.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";
import { BridgePeer } from "../helpers/bridge-peer";

let kiln: KilnServer;
/** The service's project folder (its ./recipes). */
let project: string;
let team: Team;
/** Ben, made an editor, with a write token. */
let ben: string;

const call = (tool: string, body: unknown, headers: Record<string, string> = {}) => post(`${kiln.url}/tools/${tool}`, body, headers);
const ada = () => ({ ...bearer(team.editor), "x-kiln-session": "ada-tab" });
const boxX = async () => (await call("get_scene", {}, bearer(team.owner))).body.result.objects.find((o: { name: string }) => o.name === "Box").position.x;

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-locks-project-"));
  kiln = await startServer({ cwd: project, env: { KILN_AUTH: "team", HOME: project } });
  team = await setUpTeam(kiln);
  expect((await call("set_user_role", { user: "ben@example.com", role: "editor" }, bearer(team.owner))).status).toBe(200);
  ben = (await call("create_token", { name: "Ben's write", scope: "write", user: "ben@example.com" }, bearer(team.owner))).body.result.token;
  for (const [tool, params] of [
    ["create_gameobject", { name: "Box", type: "Cube" }], ["create_gameobject", { name: "Ball", type: "Sphere" }],
    ["create_material", { name: "Red", color: { r: 1, g: 0, b: 0, a: 1 } }],
  ] as const) expect((await call(tool, params, ada())).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

describe("locks: the rules", () => {
  it("Ada locks Box; Ben's move is 423 LOCKED naming Ada and since when, and Box stays where it was", async () => {
    const locked = await call("lock", { kind: "object", name: "Box" }, ada());
    expect(locked.status).toBe(200);
    expect(locked.body.result).toMatchObject({ renewed: false, lock: { kind: "object", name: "Box", scene: "Main", holder: { name: "Ada", session: "ada-tab" } } });
    const before = await boxX();
    const r = await call("set_transform", { target: "Box", position: { x: 7 } }, bearer(ben));
    expect(r.status).toBe(423);
    expect(r.body.error.code).toBe("LOCKED");
    expect(r.body.error.message).toMatch(/^The object "Box" is locked by Ada \(.*\) \(since \d\d:\d\d:\d\d UTC, \d+ s ago\); nothing was changed\.$/);
    expect(r.body.error.details.lock).toMatchObject({ key: expect.stringMatching(/^object\/.*\/Main\/Box$/), holder: { name: "Ada" } });
    expect(await boxX()).toBe(before);
    // Deleting it is a change too; another object is not locked.
    expect((await call("delete_object", { target: "Box" }, bearer(ben))).status).toBe(423);
    expect((await call("set_transform", { target: "Ball", position: { x: 1 } }, bearer(ben))).status).toBe(200);
  });

  it("the holder changes what they locked, from any of their clients", async () => {
    expect((await call("set_transform", { target: "Box", position: { x: 2 } }, ada())).status).toBe(200);
    expect((await call("set_transform", { target: "Box", position: { x: 3 } }, bearer(team.editor))).status).toBe(200);
    expect(await boxX()).toBe(3);
  });

  it("the refusal is the same over tRPC (423, Kiln's error in data.kiln)", async () => {
    const r = await fetch(`${kiln.url}/api/trpc/tools.set_transform`, {
      method: "POST", headers: { "content-type": "application/json", ...bearer(ben) }, body: JSON.stringify({ target: "Box", position: { x: 9 } }),
    });
    expect(r.status).toBe(423);
    const body = await r.json();
    expect(body.error.data.kiln).toMatchObject({ code: "LOCKED", details: { lock: { holder: { name: "Ada" } } } });
    expect(await boxX()).toBe(3);
  });

  it("and over MCP (a tool error naming Ada)", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(ben) };
    const rpc = (id: number, method: string, params: unknown) =>
      fetch(`${kiln.url}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
    await rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "lock test", version: "1" } });
    const r = await rpc(2, "tools/call", { name: "set_transform", arguments: { target: "Box", position: { x: 9 } } });
    const text = await r.text();
    const json = JSON.parse(text.startsWith("{") ? text : text.split("\n").find((l) => l.startsWith("data: "))!.slice(6));
    expect(json.result.isError).toBe(true);
    expect(JSON.stringify(json.result.content)).toMatch(/LOCKED.*locked by Ada/);
    expect(await boxX()).toBe(3);
  });

  it("and in a recipe, checked per step with the runner's rights", async () => {
    const yaml = "name: move-box\ndescription: moves Box\nsteps:\n  - name: move\n    tool: set_transform\n    params: { target: Box, position: { x: 11 } }\n";
    expect((await call("save_recipe", { name: "move-box", yaml }, bearer(ben))).status).toBe(200);
    const run = await call("run_recipe", { recipe: "move-box" }, bearer(ben));
    expect([run.status, run.body.error]).toEqual([200, undefined]);
    const detail = run.body.result;
    expect(detail.status).toBe("failed");
    expect(detail.steps[0].error).toMatchObject({ code: "LOCKED" });
    expect(await boxX()).toBe(3);
  });

  it("someone else cannot take, or release, a held lock; a viewer cannot lock at all", async () => {
    const taken = await call("lock", { kind: "object", name: "Box" }, bearer(ben));
    expect(taken.status).toBe(423);
    expect(taken.body.error.message).toContain("locked by Ada");
    expect((await call("unlock", { kind: "object", name: "Box" }, bearer(ben))).status).toBe(423);
    const forced = await call("unlock", { kind: "object", name: "Box", force: true }, bearer(ben));
    expect(forced.status).toBe(403);
    expect(forced.body.error.message).toMatch(/needs the owner role/);
    expect((await call("lock", { kind: "object", name: "Ball" }, bearer(team.viewer))).status).toBe(403);
    // Locking again what you hold renews it.
    const again = await call("lock", { kind: "object", name: "Box" }, ada());
    expect(again.body.result.renewed).toBe(true);
  });

  it("a lock on a missing thing is 404; list_locks lists them (filters: kind, mine)", async () => {
    expect((await call("lock", { kind: "object", name: "Nope" }, ada())).status).toBe(404);
    expect((await call("lock", { kind: "material", name: "Nope" }, ada())).status).toBe(404);
    const all = (await call("list_locks", {}, bearer(team.viewer))).body.result.locks;
    expect(all.map((l: { name: string }) => l.name)).toEqual(["Box"]);
    expect((await call("list_locks", { mine: true }, bearer(ben))).body.result.locks).toEqual([]);
    expect((await call("list_locks", { kind: "recipe" }, ada())).body.result.locks).toEqual([]);
  });

  it("an owner breaks a lock with force; the audit log records it", async () => {
    const broken = await call("unlock", { kind: "object", name: "Box", force: true }, bearer(team.owner));
    expect(broken.status).toBe(200);
    expect(broken.body.result).toMatchObject({ released: true, broken: true, lock: { holder: { name: "Ada" } } });
    const log = (await call("get_audit_log", { action: "lock_broken" }, bearer(team.owner))).body.result.entries;
    expect(log[0]).toMatchObject({ action: "lock_broken", actor: { name: "Olive" }, target: { name: "Ada" }, details: { name: "Box", kind: "object" } });
    expect((await call("set_transform", { target: "Box", position: { x: 4 } }, bearer(ben))).status).toBe(200);
    // Nothing held: unlocking changes nothing.
    expect((await call("unlock", { kind: "object", name: "Box" }, ada())).body.result).toMatchObject({ released: false, broken: false });
  });

  it("a scene's lock covers its objects; a material's lock covers the material", async () => {
    expect((await call("lock", { kind: "scene", name: "Main" }, ada())).status).toBe(200);
    const created = await call("create_gameobject", { name: "Cone", type: "Cube" }, bearer(ben));
    expect(created.status).toBe(423);
    expect(created.body.error.message).toContain('The scene "Main" is locked by Ada');
    expect((await call("set_transform", { target: "Ball", position: { x: 5 } }, bearer(ben))).status).toBe(423);
    expect((await call("unlock", { kind: "scene", name: "Main" }, ada())).body.result.released).toBe(true);

    expect((await call("lock", { kind: "material", name: "Red" }, ada())).status).toBe(200);
    const replaced = await call("create_material", { name: "Red", color: { r: 0, g: 1, b: 0, a: 1 }, if_exists: "replace" }, bearer(ben));
    expect(replaced.status).toBe(423);
    expect(replaced.body.error.message).toContain('The material "Red" is locked by Ada');
    expect((await call("unlock", { kind: "material", name: "Red" }, ada())).status).toBe(200);
  });

  it("a recipe's lock refuses saving and deleting it by anyone else", async () => {
    expect((await call("lock", { kind: "recipe", name: "move-box" }, ada())).status).toBe(200);
    const yaml = "name: move-box\ndescription: moves Box\nsteps: []\n";
    const saved = await call("save_recipe", { name: "move-box", yaml, overwrite: true }, bearer(ben));
    expect(saved.status).toBe(423);
    expect(saved.body.error.message).toContain('The recipe "move-box" is locked by Ada');
    expect((await call("delete_recipe", { name: "move-box" }, bearer(ben))).status).toBe(423);
    expect((await call("get_recipe_info", { recipe: "move-box" }, bearer(ben))).body.result.yaml).toContain("set_transform");
    expect((await call("lock", { kind: "recipe", name: "bad name!" }, ada())).status).toBe(400);
  });

  it("undo of an earlier change to a locked record is refused too", async () => {
    expect((await call("set_transform", { target: "Ball", position: { x: 6 } }, bearer(ben))).status).toBe(200);
    expect((await call("lock", { kind: "object", name: "Ball" }, ada())).status).toBe(200);
    const undone = await call("undo", {}, bearer(ben));
    expect(undone.status).toBe(423);
    expect((await call("unlock", { kind: "object", name: "Ball" }, ada())).status).toBe(200);
  });
});

describe("locks: a live application's hand edits", () => {
  it("Ben's lock refuses Ada's hand edit in Blender, which is set back in the app with the message", async () => {
    expect((await call("create_gameobject", { app: "blender", name: "Lamp", type: "Empty" }, ada())).status).toBe(200);
    // Blender, started with Ada's token, connects and takes Kiln's scene.
    const peer = await BridgePeer.connect({ url: `${kiln.url.replace("http", "ws")}/bridge`, token: team.editor });
    try {
      expect(peer.welcome).toBeTruthy();
      const until = async (what: () => boolean) => {
        for (let i = 0; i < 300 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
        expect(what()).toBe(true);
      };
      await until(() => [...peer.scene.values()].some((r) => r.name === "Lamp"));
      const people = (await call("list_presence", {}, bearer(ben))).body.result;
      expect(people.live_apps).toEqual([expect.objectContaining({ app: "blender", name: "Ada", label: "Ada in Blender" })]);
      expect((await call("lock", { kind: "object", name: "Lamp", app: "blender" }, bearer(ben))).status).toBe(200);
      const lamp = [...peer.scene.values()].find((r) => r.name === "Lamp")!;
      const reply = await peer.edit([{ ...lamp, position: { x: 3, y: 3, z: 3 } }]);
      expect(reply).toMatchObject({ ok: false, error: { code: "LOCKED" } });
      expect(reply.error.message).toContain('The object "Lamp" is locked by Ben');
      await until(() => peer.scene.get(lamp.id)?.position.x === 0);
      const objects = (await call("get_scene", { app: "blender" }, bearer(ben))).body.result.objects;
      expect(objects.find((o: { name: string }) => o.name === "Lamp").position).toEqual({ x: 0, y: 0, z: 0 });
      // Once Ben lets go, her hand edit is taken.
      expect((await call("unlock", { kind: "object", name: "Lamp", app: "blender" }, bearer(ben))).status).toBe(200);
      expect(await peer.edit([{ ...lamp, position: { x: 3, y: 3, z: 3 } }])).toMatchObject({ ok: true });
    } finally {
      peer.kill();
    }
  });
});

describe("locks: persistence and sessions", () => {
  it("a lock survives a restart (with its expiry)", async () => {
    const before = (await call("lock", { kind: "object", name: "Box", minutes: 45 }, ada())).body.result.lock;
    await kiln.restart();
    const after = (await call("list_locks", {}, bearer(ben))).body.result.locks;
    expect(after).toHaveLength(2); // Box, and the recipe move-box
    expect(after.find((l: { name: string }) => l.name === "Box")).toMatchObject({ since: before.since, holder: { name: "Ada", session: "ada-tab" } });
    expect(Date.parse(after.find((l: { name: string }) => l.name === "Box").expires_at)).toBeGreaterThan(Date.now() + 40 * 60_000);
    expect((await call("set_transform", { target: "Box", position: { x: 8 } }, bearer(ben))).status).toBe(423);
  });

  it("when the holder's event stream goes (the Studio tab closes), their locks go, and others hear it", async () => {
    const watcher = new AbortController();
    const seen: string[] = [];
    const w = await fetch(`${kiln.url}/events?kinds=lock,presence`, { headers: bearer(ben), signal: watcher.signal });
    const reading = (async () => {
      const reader = w.body!.getReader();
      const dec = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        for (const line of dec.decode(value).split("\n")) if (line.startsWith("data: ")) seen.push(line.slice(6));
      }
    })();
    const tab = new AbortController();
    const stream = await fetch(`${kiln.url}/events?session=ada-tab`, { headers: bearer(team.editor), signal: tab.signal });
    expect(stream.status).toBe(200);
    const presence = (await call("list_presence", {}, bearer(ben))).body.result.people;
    expect(presence.find((p: { session: string }) => p.session === "ada-tab")).toMatchObject({ name: "Ada", initials: "AD", connected: true });
    // Ben naming Ada's session on his own stream does not end hers when his goes.
    const impostor = new AbortController();
    await fetch(`${kiln.url}/events?session=ada-tab`, { headers: bearer(ben), signal: impostor.signal });
    impostor.abort();
    await new Promise((r) => setTimeout(r, 6_500));
    expect((await call("list_locks", {}, bearer(ben))).body.result.locks.map((l: { name: string }) => l.name)).toContain("Box");

    tab.abort();
    const deadline = Date.now() + 10_000;
    let locks: { name: string }[] = [];
    while (Date.now() < deadline) {
      locks = (await call("list_locks", {}, bearer(ben))).body.result.locks;
      if (!locks.some((l) => l.name === "Box")) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(locks.map((l) => l.name)).not.toContain("Box");
    expect((await call("set_transform", { target: "Box", position: { x: 8 } }, bearer(ben))).status).toBe(200);
    watcher.abort();
    await reading;
    const events = seen.map((s) => JSON.parse(s));
    expect(events).toContainEqual(expect.objectContaining({ kind: "lock", action: "released", lock: expect.objectContaining({ name: "Box" }) }));
    expect(events).toContainEqual(expect.objectContaining({ kind: "presence", action: "left", presence: expect.objectContaining({ session: "ada-tab", name: "Ada" }) }));
  }, 30_000);
});

describe("presence", () => {
  it("lists people and agents with their last call, and what a Studio tab reports", async () => {
    const reported = await call("report_presence", { page: "scene", scene: "Main", selected: "Box" }, { ...bearer(ben), "x-kiln-session": "ben-tab" });
    expect(reported.status).toBe(200);
    await call("get_scene", {}, { ...bearer(team.editor), "x-kiln-session": "ada-agent" });
    const people = (await call("list_presence", {}, bearer(team.viewer))).body.result.people;
    expect(people.find((p: { session: string }) => p.session === "ben-tab")).toMatchObject({ name: "Ben", initials: "BE", studio: { page: "scene", scene: "Main", selected: "Box", recipe: null } });
    expect(people.find((p: { session: string }) => p.session === "ada-agent")).toMatchObject({ name: "Ada", last_tool: "get_scene", token: "Ada's agent" });
  });
});

describe("saving a recipe with the revision it was loaded at", () => {
  it("409 RECIPE_CHANGED names who saved in between and hands back their text; their revision overwrites", async () => {
    const v1 = "name: shared\nsteps:\n  - name: a\n    tool: take_screenshot\n";
    expect((await call("save_recipe", { name: "shared", yaml: v1 }, ada())).status).toBe(200);
    const loaded = (await call("get_recipe_info", { recipe: "shared" }, bearer(ben))).body.result;
    expect(loaded.saved_by).toMatchObject({ name: "Ada", revision: loaded.revision });
    // Ada saves again; Ben, who loaded v1, saves his edit.
    const v2 = `${v1}  - name: b\n    tool: get_scene\n`;
    const adaSave = await call("save_recipe", { name: "shared", yaml: v2, revision: loaded.revision }, ada());
    expect(adaSave.status).toBe(200);
    const mine = v1.replace("take_screenshot", "list_objects");
    const refused = await call("save_recipe", { name: "shared", yaml: mine, revision: loaded.revision }, bearer(ben));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("RECIPE_CHANGED");
    expect(refused.body.error.message).toMatch(/^The recipe "shared" was saved by Ada .* at \d\d:\d\d:\d\d UTC since you loaded it; nothing was saved\./);
    expect(refused.body.error.details).toMatchObject({ their_yaml: v2, their_revision: adaSave.body.result.revision, saved_by: { name: "Ada" } });
    expect((await call("get_recipe_info", { recipe: "shared" }, bearer(ben))).body.result.yaml).toBe(v2);
    // Overwrite: save again with their revision.
    const over = await call("save_recipe", { name: "shared", yaml: mine, revision: refused.body.error.details.their_revision }, bearer(ben));
    expect(over.status).toBe(200);
    expect((await call("get_recipe_info", { recipe: "shared" }, ada())).body.result).toMatchObject({ yaml: mine, saved_by: { name: "Ben" } });
    // A malformed revision is a 400 naming the field.
    expect((await call("save_recipe", { name: "shared", yaml: mine, revision: "nope" }, bearer(ben))).body.error.details.fields[0].path).toBe("revision");
  });
});
