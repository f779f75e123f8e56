/**
 * Transactions over HTTP: after rollback every app's scene is exactly what it was at begin,
 * whatever happened in between (including a SIGKILL); commit makes one history entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rng } from "../helpers/random";
import { startServer, type KilnServer } from "../helpers/server";

const APPS = ["blender", "unity", "godot"] as const;
let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

const world = () => Promise.all(APPS.map(async (app) => {
  const scene = await kiln.ok("get_scene", { app });
  const others = await Promise.all(scene.scenes.map((s: string) => kiln.ok("get_scene", { app, scene: s })));
  return { active: scene.active_scene, scenes: others };
}));
const bare = (tool: string) => fetch(`${kiln.url}/tools/${tool}`, { method: "POST" });


describe("the spec's flow", () => {
  it("rollback: neither wall exists and the scene equals the state before begin", async () => {
    await kiln.ok("create_gameobject", { name: "Floor", type: "Plane" });
    const before = await world();
    await kiln.ok("begin_transaction", { name: "scene-setup" });
    await kiln.ok("create_gameobject", { name: "Wall1", type: "Cube" });
    await kiln.ok("create_gameobject", { name: "Wall2", type: "Cube" });
    const status = await kiln.call("get_transaction_status", undefined, { method: "GET" });
    expect(status.body.result).toMatchObject({ status: "open", transaction: { name: "scene-setup", operations: 2, tools: ["create_gameobject"] } });
    const r = await bare("rollback_transaction");
    expect(r.status).toBe(200);
    expect((await r.json()).result).toMatchObject({ transaction: { name: "scene-setup", outcome: "rolled_back", operations: 2 } });
    expect(await world()).toEqual(before);
    expect((await kiln.ok("get_transaction_status")).last).toMatchObject({ outcome: "rolled_back", name: "scene-setup" });
  });

  it("commit: both walls exist and the history shows one group", async () => {
    await kiln.ok("begin_transaction", { name: "scene-setup" });
    await kiln.ok("create_gameobject", { name: "Wall1", type: "Cube" });
    await kiln.ok("create_gameobject", { name: "Wall2", type: "Cube" });
    const r = await bare("commit_transaction");
    expect(r.status).toBe(200);
    const names = (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name);
    expect(names).toEqual(expect.arrayContaining(["Wall1", "Wall2"]));
    const history = await kiln.ok("get_history", { limit: 3 });
    expect(history.entries[0]).toMatchObject({ kind: "transaction", transaction: { name: "scene-setup", outcome: "committed", operations: 2, tools: ["create_gameobject"] } });
    expect(history.entries[1]).toMatchObject({ kind: "rollback", tool: "rollback_transaction" });
    expect((await kiln.ok("get_transaction_status"))).toMatchObject({ status: "none", last: { outcome: "committed", operations: 2 } });
  });
});

describe("conflicts", () => {
  it("answers 409 for every out-of-place call, changing nothing", async () => {
    let r = await bare("commit_transaction");
    expect([r.status, (await r.json()).error.code]).toEqual([409, "NO_OPEN_TRANSACTION"]);
    r = await bare("rollback_transaction");
    expect([r.status, (await r.json()).error.code]).toEqual([409, "NO_OPEN_TRANSACTION"]);
    await kiln.ok("save_version", { name: "before tx" });
    await kiln.ok("begin_transaction", { name: "t1" });
    const again = await kiln.call("begin_transaction", { name: "t2" });
    expect([again.status, again.body.error.code]).toEqual([409, "TRANSACTION_ALREADY_OPEN"]);
    for (const [tool, params] of [["save_version", { name: "x" }], ["restore_version", { version_id: "v001" }], ["create_branch", { name: "b" }], ["switch_branch", { name: "main" }], ["delete_version", { version_id: "v001" }]] as const) {
      const res = await kiln.call(tool, params);
      expect([tool, res.status, res.body.error.code]).toEqual([tool, 409, "TRANSACTION_OPEN"]);
    }
    // Reading still works.
    expect((await kiln.call("list_versions", {})).status).toBe(200);
    expect((await kiln.call("list_branches", {})).status).toBe(200);
    expect((await kiln.ok("get_transaction_status")).transaction).toMatchObject({ name: "t1", operations: 0 });
  });

  it("a failing call inside a transaction changes nothing and leaves it open", async () => {
    const before = await world();
    const r = await kiln.call("set_transform", { target: "Nobody", position: { x: 1 } });
    expect(r.status).toBe(404);
    const bad = await kiln.call("create_gameobject", { name: "X", type: "Cone" });
    expect(bad.status).toBe(400);
    expect(await world()).toEqual(before);
    expect((await kiln.ok("get_transaction_status")).status).toBe("open");
    await kiln.ok("rollback_transaction");
  });

  it("rollback_on_error rolls back on the first failing call and says so", async () => {
    const before = await world();
    await kiln.ok("begin_transaction", { name: "careful", rollback_on_error: true });
    await kiln.ok("create_gameobject", { name: "Temp", type: "Cube" });
    const r = await kiln.call("create_gameobject", { name: "Temp", type: "Cube" });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("NAME_CONFLICT");
    expect(r.body.error.message).toContain("rolled back");
    expect(r.body.error.details.transaction).toMatchObject({ name: "careful", outcome: "rolled_back", rolled_back: true });
    expect(await world()).toEqual(before);
    expect(await kiln.ok("get_transaction_status")).toMatchObject({ status: "none", last: { name: "careful", outcome: "rolled_back" } });
  });
});

describe("rollback restores the begin state exactly", () => {
  it("property: random edits across apps and scenes, then rollback", async () => {
    for (const seed of [1, 2, 3]) {
      const random = rng(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
      const before = await world();
      await kiln.ok("begin_transaction", { name: `prop-${seed}` });
      let n = 0;
      for (let i = 0; i < 60; i++) {
        const app = pick(APPS);
        const objects = (await kiln.ok("list_objects", { app })).objects.map((o: { name: string }) => o.name);
        const scenes = (await kiln.ok("get_scene", { app })).scenes;
        const r = random();
        if (r < 0.3 || !objects.length) await kiln.call("create_gameobject", { name: `R${seed}-${n++}`, type: pick(["Cube", "Empty", "Sphere"]), parent: objects.length && random() < 0.3 ? pick(objects) : undefined, app });
        else if (r < 0.5) await kiln.call("set_transform", { target: pick(objects), position: { x: random() * 10 }, rotation: { z: random() * 90 }, app });
        else if (r < 0.6) await kiln.call("create_material", { name: `Mat${seed}-${n++}`, color: { r: random(), g: random(), b: random() }, app });
        else if (r < 0.7) {
          const mats = (await kiln.ok("get_scene", { app })).materials.map((m: { name: string }) => m.name);
          if (mats.length) await kiln.call("set_material", { target: pick(objects), material: pick(mats), app });
        } else if (r < 0.8) await kiln.call("delete_object", { target: pick(objects), app });
        else if (r < 0.88) await kiln.call("create_scene", { name: `Scene${seed}-${n++}`, app });
        else if (r < 0.95) await kiln.call("open_scene", { name: pick(scenes), app });
        else await kiln.call("set_camera", { position: { y: random() * 5 }, fov: 30 + random() * 50, app });
      }
      await kiln.ok("rollback_transaction");
      expect(await world()).toEqual(before);
    }
  });

  it("20 concurrent clients writing inside one transaction, then rollback", async () => {
    const before = await world();
    await kiln.ok("begin_transaction", { name: "crowd" });
    await Promise.all(Array.from({ length: 20 }, (_, c) => (async () => {
      for (let i = 0; i < 10; i++) {
        await kiln.call("create_gameobject", { name: `C${c}-${i}`, type: "Cube", app: APPS[c % 3] });
        await kiln.call("set_transform", { target: `C${c}-${i}`, position: { y: i }, app: APPS[c % 3] });
      }
    })()));
    expect((await kiln.ok("get_transaction_status")).transaction.operations).toBe(400);
    await kiln.ok("rollback_transaction");
    expect(await world()).toEqual(before);
  });

  it("survives a SIGKILL with the transaction open after 100 operations", async () => {
    const before = await world();
    await kiln.ok("begin_transaction", { name: "crash" });
    for (let i = 0; i < 50; i++) {
      await kiln.ok("create_gameobject", { name: `K${i}`, type: "Sphere", app: "godot" });
      await kiln.ok("set_transform", { target: `K${i}`, position: { z: -i }, app: "godot" });
    }
    await kiln.kill("SIGKILL");
    await kiln.restart();
    const status = await kiln.ok("get_transaction_status");
    expect(status).toMatchObject({ status: "open", transaction: { name: "crash", operations: 100 } });
    expect((await kiln.ok("list_objects", { app: "godot" })).total).toBeGreaterThanOrEqual(50);
    await kiln.ok("rollback_transaction");
    expect(await world()).toEqual(before);
    await kiln.restart();
    expect(await world()).toEqual(before);
  });
});

describe("on PostgreSQL", () => {
  it("rolls back exactly, commits as one history entry, and survives a SIGKILL", async () => {
    const pg = await startServer({ provider: "postgresql" });
    try {
      const scene = () => pg.ok("get_scene", {});
      await pg.ok("create_gameobject", { name: "Floor", type: "Plane" });
      const before = await scene();
      await pg.ok("begin_transaction", { name: "pg-rollback" });
      await pg.ok("create_gameobject", { name: "Wall1", type: "Cube" });
      await pg.ok("set_transform", { target: "Floor", position: { y: 2 } });
      await pg.kill("SIGKILL");
      await pg.restart();
      expect(await pg.ok("get_transaction_status")).toMatchObject({ status: "open", transaction: { operations: 2 } });
      await pg.ok("rollback_transaction");
      expect(await scene()).toEqual(before);
      await pg.ok("begin_transaction", { name: "pg-commit" });
      await pg.ok("create_gameobject", { name: "Wall2", type: "Cube" });
      await pg.ok("commit_transaction");
      const history = await pg.ok("get_history", { limit: 2 });
      expect(history.entries[0]).toMatchObject({ kind: "transaction", transaction: { name: "pg-commit", outcome: "committed", operations: 1 } });
      expect(history.entries[1]).toMatchObject({ kind: "rollback" });
    } finally {
      await pg.stop();
    }
  });
});
