/**
 * Every editor tool does what DECISIONS.md says over HTTP, and every failure answers its
 * documented code and status with the scene unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

describe("editor tools", () => {
  it("create_scene makes the new scene active; open_scene switches back", async () => {
    expect(await kiln.ok("create_scene", { name: "Level1", app: "blender" })).toEqual({ app: "blender", scene: "Level1", active: true, outcome: "created", switched_from: "Main" });
    let scene = await kiln.ok("get_scene", { app: "blender" });
    expect(scene).toMatchObject({ scene: "Level1", active_scene: "Level1", scenes: ["Level1", "Main"] });
    await kiln.ok("open_scene", { name: "Main", app: "blender" });
    scene = await kiln.ok("get_scene", { app: "blender" });
    expect(scene.active_scene).toBe("Main");
  });

  it("create_gameobject builds hierarchies with defaults for missing vector components", async () => {
    await kiln.ok("create_scene", { name: "Objects" });
    await kiln.ok("create_gameobject", { name: "Root", type: "Empty", position: { y: 1 } });
    const child = await kiln.ok("create_gameobject", { name: "Wheel", type: "Cylinder", parent: "Root", rotation: { z: 90 }, scale: { y: 0.2 } });
    expect(child.object).toMatchObject({
      name: "Wheel", kind: "mesh", type: "Cylinder", parent: "Root",
      position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 90 }, scale: { x: 1, y: 0.2, z: 1 },
    });
    const list = await kiln.ok("list_objects", {});
    expect(list.objects).toEqual([
      { name: "Root", kind: "empty", type: "Empty", parent: null },
      { name: "Wheel", kind: "mesh", type: "Cylinder", parent: "Root" },
    ]);
  });

  it("create_light makes Directional, Point and Spot lights", async () => {
    for (const type of ["Directional", "Point", "Spot"]) {
      const r = await kiln.ok("create_light", { name: `L-${type}`, type, intensity: "2", position: { y: 3 } });
      expect(r.object.light).toMatchObject({ type, intensity: 2, color: { r: 1, g: 1, b: 1, a: 1 } });
    }
    const lights = await kiln.ok("list_objects", { kind: "light" });
    expect(lights.total).toBe(3);
  });

  it("set_camera changes only what it is given", async () => {
    const r = await kiln.ok("set_camera", { position: { x: 2 }, fov: 45 });
    expect(r.camera).toEqual({ position: { x: 2, y: 1, z: -10 }, rotation: { x: 0, y: 0, z: 0 }, fov: 45 });
  });

  it("create_material and set_material colour a mesh", async () => {
    const m = await kiln.ok("create_material", { name: "Steel", color: { r: 0.5, g: 0.5, b: 0.55 }, metallic: 1, roughness: 0.3 });
    expect(m.material).toEqual({ name: "Steel", color: { r: 0.5, g: 0.5, b: 0.55, a: 1 }, metallic: 1, roughness: 0.3 });
    await kiln.ok("set_material", { target: "Wheel", material: "Steel" });
    const scene = await kiln.ok("get_scene", {});
    expect(scene.objects.find((o: { name: string }) => o.name === "Wheel").material).toBe("Steel");
    expect(scene.materials.map((x: { name: string }) => x.name)).toContain("Steel");
  });

  it("set_transform keeps the components it is not given", async () => {
    const r = await kiln.ok("set_transform", { target: "Root", position: { x: 4 }, scale: { z: 2 } });
    expect(r.object.position).toEqual({ x: 4, y: 1, z: 0 });
    expect(r.object.scale).toEqual({ x: 1, y: 1, z: 2 });
  });

  it("delete_object removes the object and its children", async () => {
    const r = await kiln.ok("delete_object", { target: "Root" });
    expect(r.deleted).toEqual(["Root", "Wheel"]);
    expect((await kiln.ok("list_objects", {})).objects.filter((o: { kind: string }) => o.kind !== "light")).toEqual([]);
  });
});

describe("editor tool errors change nothing", () => {
  const cases: [string, string, Record<string, unknown>, number, string][] = [
    ["a duplicate object name", "create_gameobject", { name: "L-Point", type: "Cube" }, 409, "NAME_CONFLICT"],
    ["a duplicate scene", "create_scene", { name: "Objects" }, 409, "SCENE_EXISTS"],
    ["a duplicate material", "create_material", { name: "Steel", color: { r: 1, g: 1, b: 1 } }, 409, "MATERIAL_EXISTS"],
    ["a missing parent", "create_gameobject", { name: "Orphan", type: "Cube", parent: "Nobody" }, 404, "OBJECT_NOT_FOUND"],
    ["an unknown scene", "get_scene", { scene: "Atlantis" }, 404, "SCENE_NOT_FOUND"],
    ["an unknown target", "set_transform", { target: "Ghost", position: { x: 1 } }, 404, "OBJECT_NOT_FOUND"],
    ["an unknown material", "set_material", { target: "L-Point", material: "Gold" }, 404, "MATERIAL_NOT_FOUND"],
    ["a material on a light", "set_material", { target: "L-Point", material: "Steel" }, 400, "NOT_A_MESH"],
    ["a colour out of range", "create_material", { name: "Hot", color: { r: 2, g: 0, b: 0 } }, 400, "INVALID_PARAMS"],
    ["an unknown app", "get_scene", { app: "maya" }, 400, "INVALID_PARAMS"],
    ["an unknown object type", "create_gameobject", { name: "Cone", type: "Cone" }, 400, "INVALID_PARAMS"],
  ];
  it.each(cases)("%s", async (_label, tool, params, status, code) => {
    const before = JSON.stringify(await kiln.ok("get_scene", {}));
    const r = await kiln.call(tool, params);
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(JSON.stringify(await kiln.ok("get_scene", {}))).toBe(before);
  });
});
