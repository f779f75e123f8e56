/**
 * Kiln reads the files real Blender writes: a Suzanne with an Array modifier, a material and
 * keyed location and rotation, parented to an Empty, exported by Blender as glTF, FBX and OBJ
 * (modifiers applied), comes into Kiln's Blender scene through import_asset with the expected
 * objects, Blender's own triangle count, world placement and keyframes.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Vector3 } from "three";
import { startServer, type KilnServer } from "../helpers/server";
import { localMatrix, worldMatrix, type SceneObject } from "../helpers/placement";
import { runBlender } from "./blender";

interface Exported {
  triangles: number;
  bounds: { min: number[]; max: number[] };
  suzanne: number[];
  keys: { first: number[]; last: number[]; duration: number };
}

let kiln: KilnServer;
let blender: Exported;
let dir: string;
beforeAll(async () => {
  kiln = await startServer();
  dir = path.join(kiln.home, "assets", "from-blender");
  blender = runBlender<Exported>("export_suzanne.py", [dir]);
});
afterAll(async () => { await kiln?.stop(); });

const TOL = 1e-4;

describe.each([["gltf", "suzanne.glb"], ["fbx", "suzanne.fbx"], ["obj", "suzanne.obj"]])("Kiln imports Blender's %s", (format, file) => {
  let result: any;
  let objects: SceneObject[];
  const named = (from: string) => result.imported.names.find((n: string) => n === from || n.startsWith(`${from}.`));
  beforeAll(async () => {
    result = await kiln.ok("import_asset", { app: "blender", path: path.join(dir, file) });
    objects = (await kiln.ok("get_scene", { app: "blender" })).objects;
  });

  it("creates the expected objects with Blender's triangle count and colour", async () => {
    expect(result).toMatchObject({ app: "blender", format, imported: { triangles: blender.triangles, materials: 1 } });
    if (format === "obj") expect(result.imported.names).toEqual([named("Suzanne")]);
    else {
      expect(result.imported.root).toBe(named("Stand"));
      expect(objects.find((o) => o.name === named("Suzanne"))!.parent).toBe(named("Stand"));
    }
    const material = (await kiln.ok("get_scene", { app: "blender" })).materials.find((m: { name: string }) => m.name.startsWith("Blue"));
    expect(material.color).toMatchObject({ r: expect.closeTo(0.1, 3), g: expect.closeTo(0.5, 3), b: expect.closeTo(0.9, 3) });
  });

  it("puts the geometry where Blender had it", async () => {
    const assets = (await kiln.ok("list_transferable_assets", { app: "blender" })).assets;
    const b = assets.find((a: { name: string }) => a.name === result.imported.root).bounds;
    const got = [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z];
    [...blender.bounds.min, ...blender.bounds.max].forEach((v, i) => expect(Math.abs(got[i] - v), `bounds[${i}]`).toBeLessThan(TOL));
    if (format === "gltf") {
      const m = worldMatrix("blender", objects, named("Suzanne")).transpose().elements; // row-major, as Blender prints
      blender.suzanne.forEach((v, i) => expect(Math.abs(m[i] - v), `matrix[${i}]`).toBeLessThan(TOL));
    }
  });

  it("has the keyframes where the format carries them", () => {
    const suzanne = objects.find((o) => o.name === named("Suzanne"))!;
    if (format === "obj") return expect(suzanne.keyframes).toBeUndefined();
    const keys = suzanne.keyframes!;
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.at(-1)!.time - keys[0].time).toBeCloseTo(blender.keys.duration, 4);
    // World position at the first and last key: the parent's world matrix times the keyed local transform.
    const parent = worldMatrix("blender", objects, suzanne.parent!);
    const at = (k: (typeof keys)[number]) => new Vector3().setFromMatrixPosition(parent.clone().multiply(localMatrix("blender", { position: k.position!, rotation: k.rotation!, scale: k.scale ?? { x: 1, y: 1, z: 1 } })));
    expect(at(keys[0]).distanceTo(new Vector3(...blender.keys.first))).toBeLessThan(TOL);
    expect(at(keys.at(-1)!).distanceTo(new Vector3(...blender.keys.last))).toBeLessThan(TOL);
  });
});
