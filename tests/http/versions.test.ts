/**
 * Version control over HTTP: the spec's flows, every error with nothing changed, restore never
 * losing unsaved work, and per-branch working state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

const names = async (app = "unity") => (await kiln.ok("list_objects", { app })).objects.map((o: { name: string }) => o.name);
const world = async () => JSON.stringify(await Promise.all(["blender", "unity", "godot"].map((app) => kiln.ok("get_scene", { app }))));

describe("the spec's flow", () => {
  it("saves, lists, restores, branches, switches, deletes", async () => {
    await kiln.ok("create_gameobject", { name: "Floor", type: "Plane" });
    const v1 = await kiln.ok("save_version", { name: "floor", description: "just a floor" });
    expect(v1).toMatchObject({ version_id: "v001", name: "floor", description: "just a floor", branch: "main", parent: null, summary: { objects: 1 } });
    await kiln.ok("create_gameobject", { name: "Wall", type: "Cube" });
    const v2 = await kiln.ok("save_version", { name: "wall" });
    expect(v2).toMatchObject({ version_id: "v002", parent: "v001", summary: { objects: 2, changes: 1 } });

    const list = await kiln.call("list_versions", { limit: "1", offset: "0" }, { method: "GET" });
    expect(list.body.result).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(list.body.result.versions.map((v: { version_id: string }) => v.version_id)).toEqual(["v002"]);
    const page2 = await kiln.ok("list_versions", { limit: 1, offset: 1 });
    expect(page2.versions.map((v: { version_id: string }) => v.version_id)).toEqual(["v001"]);

    const restored = await kiln.ok("restore_version", { version_id: "v001" });
    expect(restored).toMatchObject({ restored: { version_id: "v001" }, auto_saved: null });
    expect(await names()).toEqual(["Floor"]);
    // The head did not move: main still ends at v002, and the working state (v001's) differs
    // from it, so a save would record something new.
    let branches = (await kiln.ok("list_branches")).branches;
    expect(branches).toEqual([expect.objectContaining({ name: "main", head: "v002", current: true, unsaved_changes: true })]);

    await kiln.ok("restore_version", { version_id: "v002" });
    const branch = await kiln.ok("create_branch", { name: "feature/lights", from_version: "v001" });
    expect(branch).toMatchObject({ name: "feature/lights", head: "v001", base: "v001", current: false });
    // Unsaved work on main, then switch.
    await kiln.ok("create_gameobject", { name: "Unsaved", type: "Sphere" });
    const mainBefore = await world();
    await kiln.ok("switch_branch", { name: "feature/lights" });
    expect(await names()).toEqual(["Floor"]);
    await kiln.ok("create_light", { name: "Lamp", type: "Point" });
    const v3 = await kiln.ok("save_version", { name: "lamp" });
    expect(v3).toMatchObject({ version_id: "v003", branch: "feature/lights", parent: "v001" });
    await kiln.ok("switch_branch", { name: "main" });
    expect(await world()).toBe(mainBefore);
    branches = (await kiln.ok("list_branches")).branches;
    expect(branches.find((b: { name: string }) => b.name === "main")).toMatchObject({ current: true, unsaved_changes: true, versions: 2 });
    expect(branches.find((b: { name: string }) => b.name === "feature/lights")).toMatchObject({ head: "v003", versions: 1, unsaved_changes: false });

    // Deleting v001 re-parents v002 and v003 to nothing, and the branch base moves.
    const del = await kiln.ok("delete_version", { version_id: "v002" });
    expect(del).toMatchObject({ deleted: "v002", parent: "v001", branches_moved: [{ name: "main", head: { from: "v002", to: "v001" } }] });
    const all = await kiln.ok("list_versions", {});
    expect(all.versions.map((v: { version_id: string; parent: string }) => [v.version_id, v.parent])).toEqual([["v003", "v001"], ["v001", null]]);
    expect((await kiln.ok("list_branches")).branches.find((b: { name: string }) => b.name === "main").head).toBe("v001");
    // Ids are never reused.
    expect((await kiln.ok("save_version", { name: "after delete" })).version_id).toBe("v004");
  });

  it("deleting a version with a child re-parents the child", async () => {
    await kiln.ok("set_transform", { target: "Floor", position: { x: 1 } });
    const a = await kiln.ok("save_version", { name: "a" });
    await kiln.ok("set_transform", { target: "Floor", position: { x: 2 } });
    const b = await kiln.ok("save_version", { name: "b" });
    const del = await kiln.call("delete_version", undefined, { method: "DELETE" });
    expect(del.status).toBe(400);
    const r = await kiln.ok("delete_version", { version_id: a.version_id });
    expect(r.reparented).toEqual([b.version_id]);
    const list = await kiln.ok("list_versions", {});
    expect(list.versions.find((v: { version_id: string }) => v.version_id === b.version_id).parent).toBe(r.parent);
    // b still restores exactly.
    await kiln.ok("restore_version", { version_id: b.version_id });
    const floor = (await kiln.ok("get_scene", {})).objects.find((o: { name: string }) => o.name === "Floor");
    expect(floor.position.x).toBe(2);
  });

  it("delete_version answers DELETE too", async () => {
    const v = await kiln.ok("save_version", { name: "to delete" });
    const r = await fetch(`${kiln.url}/tools/delete_version`, { method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ version_id: v.version_id }) });
    expect(r.status).toBe(200);
  });

  it("DELETE reads the version id from the query string, and refuses one given in both places", async () => {
    const v = await kiln.ok("save_version", { name: "to delete by query" });
    const r = await fetch(`${kiln.url}/tools/delete_version?version_id=${v.version_id}`, { method: "DELETE" });
    expect(r.status).toBe(200);
    expect((await r.json()).result).toMatchObject({ deleted: v.version_id });
    const w = await kiln.ok("save_version", { name: "kept" });
    const both = await fetch(`${kiln.url}/tools/delete_version?version_id=${w.version_id}`, {
      method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ version_id: w.version_id }),
    });
    expect(both.status).toBe(400);
    expect((await both.json()).error).toMatchObject({ code: "INVALID_PARAMS", details: { fields: [{ path: "version_id" }] } });
    const unknown = await fetch(`${kiln.url}/tools/delete_version?version_id=v990`, { method: "DELETE" });
    expect(unknown.status).toBe(404);
    const versions = (await kiln.ok("list_versions", { limit: 500 })).versions.map((x: { version_id: string }) => x.version_id);
    expect(versions).toContain(w.version_id);
    expect(versions).not.toContain(v.version_id);
  });
});

describe("branch bookkeeping", () => {
  it("unsaved_changes is true after restoring an older version, and false again once saved or back at the head", async () => {
    await kiln.ok("create_gameobject", { name: "Bookkeeping", type: "Cube", app: "blender", if_exists: "replace" });
    const old = await kiln.ok("save_version", { name: "old" });
    await kiln.ok("set_transform", { target: "Bookkeeping", app: "blender", position: { x: 4 } });
    const head = await kiln.ok("save_version", { name: "head" });
    const current = async () => (await kiln.ok("list_branches")).branches.find((b: { current: boolean }) => b.current);
    expect(await current()).toMatchObject({ head: head.version_id, unsaved_changes: false });
    await kiln.ok("restore_version", { version_id: old.version_id });
    expect(await current()).toMatchObject({ head: head.version_id, unsaved_changes: true });
    await kiln.ok("restore_version", { version_id: head.version_id });
    expect(await current()).toMatchObject({ unsaved_changes: false });
    await kiln.ok("restore_version", { version_id: old.version_id });
    const saved = await kiln.ok("save_version", { name: "old again" });
    expect(await current()).toMatchObject({ head: saved.version_id, unsaved_changes: false });
  });

  it("deleting the version a branch started from moves its base to the parent and reports it", async () => {
    const parent = await kiln.ok("save_version", { name: "parent of the base" });
    await kiln.ok("set_transform", { target: "Bookkeeping", app: "blender", position: { y: 1 } });
    const base = await kiln.ok("save_version", { name: "base" });
    await kiln.ok("create_branch", { name: "based", from_version: base.version_id });
    await kiln.ok("switch_branch", { name: "based" });
    await kiln.ok("set_transform", { target: "Bookkeeping", app: "blender", position: { z: 1 } });
    const own = await kiln.ok("save_version", { name: "on based" });
    await kiln.ok("switch_branch", { name: "main" });
    const del = await kiln.ok("delete_version", { version_id: base.version_id });
    expect(del.branches_moved).toEqual([
      { name: "main", head: { from: base.version_id, to: parent.version_id } },
      { name: "based", base: { from: base.version_id, to: parent.version_id } },
    ]);
    const based = (await kiln.ok("list_branches")).branches.find((b: { name: string }) => b.name === "based");
    expect(based).toMatchObject({ head: own.version_id, base: parent.version_id, unsaved_changes: false });
  });
});

describe("restore never loses work", () => {
  it("saves unsaved changes automatically before restoring", async () => {
    const v = await kiln.ok("save_version", { name: "base" });
    await kiln.ok("create_gameobject", { name: "Precious", type: "Cube", app: "godot" });
    const r = await kiln.ok("restore_version", { version_id: v.version_id });
    expect(r.auto_saved).toMatchObject({ auto: true, name: `Auto-save before restoring ${v.version_id}` });
    expect(await names("godot")).not.toContain("Precious");
    await kiln.ok("restore_version", { version_id: r.auto_saved.version_id });
    expect(await names("godot")).toContain("Precious");
  });
});

describe("restore's auto-save: only when the working state changed since it was saved or restored", () => {
  it("restores back and forth without auto-saves, auto-saves a real change once, and says so in list_branches beforehand", async () => {
    await kiln.ok("create_gameobject", { name: "Rule", type: "Cube", app: "blender", if_exists: "replace" });
    const a = await kiln.ok("save_version", { name: "rule a" });
    await kiln.ok("set_transform", { target: "Rule", app: "blender", position: { x: 2 } });
    const b = await kiln.ok("save_version", { name: "rule b" });
    const current = async () => (await kiln.ok("list_branches")).branches.find((x: { current: boolean }) => x.current);
    expect(await current()).toMatchObject({ head: b.version_id, working_base: b.version_id, changed_since_base: false, unsaved_changes: false });
    const count = async () => (await kiln.ok("list_versions", { limit: 1 })).total;
    const versions = await count();

    // Back and forth: the working state is always a saved version, so nothing is auto-saved.
    for (const v of [a, b, a]) expect((await kiln.ok("restore_version", { version_id: v.version_id })).auto_saved).toBeNull();
    expect(await count()).toBe(versions);
    // After restoring the older one, it differs from the head (a save would record something) but nothing is unsaved.
    expect(await current()).toMatchObject({ head: b.version_id, working_base: a.version_id, changed_since_base: false, unsaved_changes: true });

    // A change made and undone leaves nothing to save either.
    await kiln.ok("set_transform", { target: "Rule", app: "blender", position: { x: 9 } });
    expect(await current()).toMatchObject({ working_base: a.version_id, changed_since_base: true });
    await kiln.ok("undo");
    expect(await current()).toMatchObject({ changed_since_base: false });
    expect((await kiln.ok("restore_version", { version_id: b.version_id })).auto_saved).toBeNull();

    // A real change is saved once, then the rule holds again after a restart.
    await kiln.ok("set_transform", { target: "Rule", app: "blender", position: { x: 5 } });
    const r = await kiln.ok("restore_version", { version_id: a.version_id });
    expect(r.auto_saved).toMatchObject({ auto: true, parent: b.version_id });
    expect(await count()).toBe(versions + 1);
    await kiln.restart();
    expect(await current()).toMatchObject({ working_base: a.version_id, changed_since_base: false });
    expect((await kiln.ok("restore_version", { version_id: r.auto_saved.version_id })).auto_saved).toBeNull();
    expect((await kiln.ok("restore_version", { version_id: a.version_id })).auto_saved).toBeNull();
    expect(await count()).toBe(versions + 1);
  });
});

describe("get_scene of a version", () => {
  it("reads a saved version's scene without restoring it; a bad or unknown id changes nothing", async () => {
    await kiln.ok("create_gameobject", { name: "Peek", type: "Sphere", app: "unity", position: { x: 1, y: 2, z: 3 }, if_exists: "replace" });
    const v = await kiln.ok("save_version", { name: "peek" });
    await kiln.ok("set_transform", { target: "Peek", app: "unity", position: { x: 7 } });
    const working = await world();
    const seen = await kiln.ok("get_scene", { app: "unity", version: v.version_id });
    expect(seen.objects.find((o: { name: string }) => o.name === "Peek").position).toEqual({ x: 1, y: 2, z: 3 });
    expect((await kiln.ok("get_scene", { app: "unity" })).objects.find((o: { name: string }) => o.name === "Peek").position).toMatchObject({ x: 7 });
    expect((await kiln.call("get_scene", { app: "unity", version: "v999" })).body.error).toMatchObject({ code: "VERSION_NOT_FOUND" });
    expect((await kiln.call("get_scene", { app: "unity", version: "../x" })).status).toBe(400);
    expect(await world()).toBe(working);
  });
});

describe("diff_versions", () => {
  it("lists objects added, removed and changed per app with old and new values", async () => {
    const a = await kiln.ok("save_version", { name: "diff base" });
    await kiln.ok("create_gameobject", { name: "NewThing", type: "Cube", app: "blender" });
    await kiln.ok("set_transform", { target: "Floor", position: { y: 3 } });
    await kiln.ok("delete_object", { target: "Precious", app: "godot" });
    const d = await kiln.ok("diff_versions", { from: a.version_id, to: "working" });
    expect(d.apps.blender.objects.added.map((o: { name: string }) => o.name)).toEqual(["NewThing"]);
    expect(d.apps.godot.objects.removed.map((o: { name: string }) => o.name)).toEqual(["Precious"]);
    expect(d.apps.unity.objects.changed).toEqual([{ name: "Floor", scene: "Main", fields: { position: { old: { x: 2, y: 0, z: 0 }, new: { x: 2, y: 3, z: 0 } } } }]);
    const b = await kiln.ok("save_version", { name: "diff head" });
    const back = await kiln.ok("diff_versions", { from: b.version_id, to: a.version_id });
    expect(back.apps.blender.objects.removed.map((o: { name: string }) => o.name)).toEqual(["NewThing"]);
  });
});

describe("errors change nothing", () => {
  const cases: [string, string, Record<string, unknown>, number, string][] = [
    ["an unknown version", "restore_version", { version_id: "v999" }, 404, "VERSION_NOT_FOUND"],
    ["a bad version id", "restore_version", { version_id: "1" }, 400, "INVALID_VERSION_ID"],
    ["a bad id to delete", "delete_version", { version_id: "v0x" }, 400, "INVALID_VERSION_ID"],
    ["deleting an unknown version", "delete_version", { version_id: "v998" }, 404, "VERSION_NOT_FOUND"],
    ["a duplicate branch", "create_branch", { name: "main" }, 409, "BRANCH_EXISTS"],
    ["a bad branch name", "create_branch", { name: "no spaces" }, 400, "INVALID_BRANCH_NAME"],
    ["a branch from an unknown version", "create_branch", { name: "x", from_version: "v997" }, 404, "VERSION_NOT_FOUND"],
    ["an unknown branch", "switch_branch", { name: "nope" }, 404, "BRANCH_NOT_FOUND"],
    ["a limit of 0", "list_versions", { limit: 0 }, 400, "INVALID_PARAMS"],
    ["a limit over 500", "list_versions", { limit: 501 }, 400, "INVALID_PARAMS"],
    ["a negative offset", "list_versions", { offset: -1 }, 400, "INVALID_PARAMS"],
    ["a non-numeric limit", "list_versions", { limit: "ten" }, 400, "INVALID_PARAMS"],
    ["a save without a name", "save_version", {}, 400, "INVALID_PARAMS"],
  ];
  it.each(cases)("%s", async (_label, tool, params, status, code) => {
    const before = [await world(), JSON.stringify(await kiln.ok("list_versions", { limit: 500 })), JSON.stringify(await kiln.ok("list_branches"))];
    const r = await kiln.call(tool, params);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    const after = [await world(), JSON.stringify(await kiln.ok("list_versions", { limit: 500 })), JSON.stringify(await kiln.ok("list_branches"))];
    expect(after).toEqual(before);
  });
});
