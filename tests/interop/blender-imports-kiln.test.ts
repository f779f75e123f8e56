/**
 * Real Blender reads the files Kiln writes: a parented, materialled, animated asset built in
 * Kiln's Blender scene, written by transfer_asset as FBX, glTF and OBJ, comes into Blender with
 * the same names, hierarchy, world transforms (within 1e-4), triangles, colours and keys.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Matrix4 } from "three";
import { startServer, type KilnServer } from "../helpers/server";
import { worldMatrix, type SceneObject } from "../helpers/placement";
import { runBlender } from "./blender";

interface BlenderObject {
  name: string; type: string; parent: string | null; matrix_world: number[]; triangles?: number;
  bounds?: { min: number[]; max: number[] }; material?: { name: string; color: number[] }; keys?: { count: number; first: number; last: number };
}

let kiln: KilnServer;
let objects: SceneObject[];
let assets: Map<string, { own_triangles: number; bounds: { min: Record<string, number>; max: Record<string, number> } | null }>;
const files: Record<string, string> = {};

beforeAll(async () => {
  kiln = await startServer();
  const app = "blender";
  await kiln.ok("create_gameobject", { app, name: "Rig", type: "Empty", position: { x: 1, y: 2, z: 3 }, rotation: { x: 10, y: 20, z: 30 } });
  await kiln.ok("create_gameobject", { app, name: "Body", type: "Cube", parent: "Rig", position: { x: 0, y: 0, z: 1 }, rotation: { x: 0, y: 0, z: 45 }, scale: { x: 1, y: 2, z: 0.5 } });
  await kiln.ok("create_gameobject", { app, name: "Head", type: "Sphere", parent: "Body", position: { x: 0, y: 0, z: 2 } });
  await kiln.ok("create_light", { app, name: "Lamp", type: "Spot", intensity: 3, range: 7, spot_angle: 40, parent: "Rig", rotation: { x: 30, y: 0, z: 0 } });
  await kiln.ok("create_material", { app, name: "Rust", color: { r: 0.8, g: 0.2, b: 0.1 }, metallic: 0.2, roughness: 0.6 });
  await kiln.ok("set_material", { app, target: "Body", material: "Rust" });
  await kiln.ok("set_keyframe", { app, target: "Body", time: 0 });
  await kiln.ok("set_keyframe", { app, target: "Body", time: 1, position: { z: 2 }, rotation: { z: 90 } });
  await kiln.ok("set_keyframe", { app, target: "Body", time: 2.5, rotation: { z: 200 } });
  for (const format of ["fbx", "gltf", "obj"]) files[format] = (await kiln.ok("transfer_asset", { source_app: app, target_app: "unity", asset: "Rig", format })).file.path;
  objects = (await kiln.ok("get_scene", { app })).objects;
  assets = new Map((await kiln.ok("list_transferable_assets", { app })).assets.map((a: { name: string }) => [a.name, a]));
});
afterAll(async () => { await kiln?.stop(); });

/** Blender's row-major matrix_world as a three.js Matrix4. */
const fromBlender = (m: number[]) => new Matrix4().set(...(m as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number]));
const distance = (a: Matrix4, b: Matrix4) => Math.max(...a.elements.map((e, i) => Math.abs(e - b.elements[i])));
/** Blender's FBX importer keeps each object's local axes as the file's (Y up): a +90° turn about X on the object side. */
const FBX_OBJECT_AXES = new Matrix4().makeRotationX(Math.PI / 2);

describe.each(["gltf", "fbx", "obj"])("Blender imports Kiln's %s", (format) => {
  let seen: Map<string, BlenderObject>;
  beforeAll(() => {
    const report = runBlender<{ objects: BlenderObject[] }>("import_report.py", [files[format], format]);
    seen = new Map(report.objects.map((o) => [o.name, o]));
  });

  it("finds the objects, with their hierarchy where the format has one", () => {
    if (format === "obj") return expect([...seen.keys()].sort()).toEqual(["Body", "Head"]);
    expect([...seen.values()].map((o) => [o.name, o.parent]).sort()).toEqual([["Body", "Rig"], ["Head", "Body"], ["Lamp", "Rig"], ["Rig", null]]);
    expect(seen.get("Lamp")!.type).toBe("LIGHT");
  });

  it("places every object where Kiln's Blender scene has it", () => {
    if (format === "obj") return; // no transforms in OBJ: the geometry test below covers placement
    for (const name of ["Rig", "Body", "Head", "Lamp"]) {
      const expected = worldMatrix("blender", objects, name);
      if (format === "fbx" && name !== "Lamp") expected.multiply(FBX_OBJECT_AXES);
      expect(distance(fromBlender(seen.get(name)!.matrix_world), expected), `${name}`).toBeLessThan(1e-4);
    }
  });

  it("has the same triangles, world-space geometry and colour", () => {
    for (const name of ["Body", "Head"]) expect(seen.get(name)!.triangles, name).toBe(assets.get(name)!.own_triangles);
    const head = assets.get("Head")!.bounds!, got = seen.get("Head")!.bounds!;
    [...got.min, ...got.max].forEach((v, i) => expect(Math.abs(v - [head.min.x, head.min.y, head.min.z, head.max.x, head.max.y, head.max.z][i])).toBeLessThan(1e-4));
    const colour = seen.get("Body")!.material!.color;
    [0.8, 0.2, 0.1, 1].forEach((c, i) => expect(colour[i]).toBeCloseTo(c, 3));
  });

  it("has the keyframes where the format carries them", () => {
    const keys = seen.get("Body")!.keys;
    if (format === "obj") return expect(keys).toBeUndefined();
    expect(keys!.count).toBe(3);
    expect(keys!.last - keys!.first).toBeCloseTo(2.5, 6);
  });
});
