/**
 * Text and numbers that no store, URL or file format can carry are refused before any tool runs,
 * on SQLite and PostgreSQL: a lone surrogate or a NUL anywhere (400 INVALID_PARAMS naming the
 * field, never a 500), and vector components outside their documented range. Nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer, type Provider } from "../helpers/server";

describe.each(["sqlite", "postgresql"] as Provider[])("input hygiene on %s", (provider) => {
  let kiln: KilnServer;
  beforeAll(async () => {
    kiln = await startServer({ provider });
    await kiln.ok("create_gameobject", { name: "Box", type: "Cube" });
  });
  afterAll(async () => {
    await kiln?.stop();
  });

  const state = async () =>
    JSON.stringify(await Promise.all([kiln.ok("get_scene"), kiln.ok("list_versions"), kiln.ok("get_transaction_status"), kiln.ok("list_branches")]));

  it.each([
    ["create_scene", { name: "\ud800" }, "name"],
    ["create_gameobject", { name: "Ok", type: "Cube", scene: "x\udc00" }, "scene"],
    ["set_material", { target: "Box\ud83d", material: "m" }, "target"],
    ["save_version", { name: "v\u0000" }, "name"],
    ["save_version", { name: "ok", description: "a\u0000b" }, "description"],
    ["begin_transaction", { name: "t\u0000" }, "name"],
    ["create_branch", { name: "b\ud800" }, "name"],
    ["validate_recipe", { yaml: "name: a\u0000" }, "yaml"],
    ["run_recipe", { recipe: "x", variables: { s: "\ud800" } }, "variables.s"],
    ["create_gameobject", { name: "Ok", type: "Cube", ["k\u0000"]: 1 }, "k\u0000"],
  ])("refuses %s with %j as INVALID_PARAMS naming %s", async (tool, params, field) => {
    const before = await state();
    const r = await kiln.call(tool, params);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_PARAMS");
    expect(r.body.error.details.fields[0].path).toBe(field);
    expect(r.body.error.message).toContain(field);
    expect(await state()).toBe(before);
  });

  it.each([
    ["create_gameobject", { name: "Far", type: "Cube", position: { x: 1e308 } }, "position.x"],
    ["create_gameobject", { name: "Big", type: "Cube", scale: { y: -1e7 } }, "scale.y"],
    ["create_gameobject", { name: "Tiny", type: "Cube", scale: { z: 1e-300 } }, "scale.z"],
    ["set_transform", { target: "Box", rotation: { x: "1e400" } }, "rotation.x"],
    ["set_camera", { position: { y: -2e9 } }, "position.y"],
  ])("refuses %s with %j out of range, naming %s", async (tool, params, field) => {
    const before = await state();
    const r = await kiln.call(tool, params);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_PARAMS");
    expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(field);
    expect(await state()).toBe(before);
  });

  it("accepts the edges of the ranges, and whatever it accepts can be read back and exported", async () => {
    await kiln.ok("create_gameobject", { name: "Edge", type: "Cube", position: { x: 1e9, y: -1e9 }, rotation: { z: 1e6 }, scale: { x: 1e6, y: 1e-6, z: 0 } });
    const scene = await kiln.ok("get_scene");
    const edge = scene.objects.find((o: { name: string }) => o.name === "Edge");
    expect(edge.position).toMatchObject({ x: 1e9, y: -1e9 });
    for (const v of ["position", "rotation", "scale"]) {
      for (const c of ["x", "y", "z"]) expect(Number.isFinite(edge[v][c]), `${v}.${c}`).toBe(true);
    }
    const transfer = await kiln.call("transfer_asset", { source_app: "unity", target_app: "blender", asset: "Edge", format: "fbx" });
    expect(transfer.status).toBe(200);
  });
});
