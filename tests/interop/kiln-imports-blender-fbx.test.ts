/**
 * Kiln reads FBX files from real Blender that go beyond plain triangle meshes: a cube with an
 * animated shape key (kept as a morph target with its weight keys, with the object and its
 * location keys) and a concave n-gon (triangulated inside its outline, with Blender's triangle count).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeFbx } from "../../server/pipeline/formats/fbx-read";
import { startServer, type KilnServer } from "../helpers/server";
import { runBlender } from "./blender";

let kiln: KilnServer;
let blender: { shapes: number; concave: number };
let dir: string;
beforeAll(async () => {
  kiln = await startServer();
  dir = path.join(kiln.home, "assets", "fbx-edge-cases");
  blender = runBlender("export_fbx_edge_cases.py", [dir]);
});
afterAll(async () => { await kiln?.stop(); });

describe("Kiln imports Blender's FBX edge cases", () => {
  it("imports a mesh with an animated shape key as a morph target with its weight keys", async () => {
    const r = await kiln.ok("import_asset", { app: "blender", path: path.join(dir, "shapes.fbx") });
    expect(r.imported).toMatchObject({ root: "Morph", triangles: blender.shapes });
    expect(r.warnings.filter((w: string) => /morph/.test(w))).toEqual([]);
    // Blender writes normals per corner, so the mesh has a vertex per corner: each takes its control point's offset.
    const { scene } = await decodeFbx(new Map([["shapes.fbx", readFileSync(path.join(dir, "shapes.fbx"))]]), "shapes.fbx");
    const mesh = scene.meshes[0];
    expect(mesh.morphTargets!.map((t) => t.name)).toEqual(["Wide"]);
    const wide = mesh.morphTargets![0].positions;
    for (let v = 0; v < mesh.positions.length / 3; v++) {
      // "Wide" doubles x in Blender's mesh space (the file's mesh space): the offset is x itself.
      expect(wide[v * 3]).toBeCloseTo(mesh.positions[v * 3], 5);
      expect([wide[v * 3 + 1], wide[v * 3 + 2]]).toEqual([0, 0]);
    }
    expect(mesh.morphWeights).toEqual([0]);
    const keys = scene.animations.find((a) => a.weights)!;
    expect(keys.weights![0][0]).toBeCloseTo(0, 5);
    expect(keys.weights!.at(-1)![0]).toBeCloseTo(1, 5);
    expect(keys.times.at(-1)! - keys.times[0]).toBeCloseTo(19 / 24, 4);
    const morph = (await kiln.ok("get_scene", { app: "blender" })).objects.find((o: { name: string }) => o.name === "Morph");
    expect(morph.keyframes.length).toBeGreaterThanOrEqual(2);
    expect(morph.keyframes.at(-1).position.x).toBeCloseTo(3, 4);
  });

  it("triangulates a concave polygon inside its outline", async () => {
    const r = await kiln.ok("import_asset", { app: "blender", path: path.join(dir, "concave.fbx") });
    expect(r.imported).toMatchObject({ root: "U", triangles: blender.concave });
    // The triangles cover the U's area (7) exactly once: a fan would also cover its notch (11).
    const { scene } = await decodeFbx(new Map([["concave.fbx", readFileSync(path.join(dir, "concave.fbx"))]]), "concave.fbx");
    const { positions: p, indices } = scene.meshes[0];
    let area = 0;
    for (let t = 0; t < indices.length; t += 3) {
      const [a, b, c] = [0, 1, 2].map((k) => indices[t + k] * 3);
      const cross = [
        (p[b + 1] - p[a + 1]) * (p[c + 2] - p[a + 2]) - (p[b + 2] - p[a + 2]) * (p[c + 1] - p[a + 1]),
        (p[b + 2] - p[a + 2]) * (p[c] - p[a]) - (p[b] - p[a]) * (p[c + 2] - p[a + 2]),
        (p[b] - p[a]) * (p[c + 1] - p[a + 1]) - (p[b + 1] - p[a + 1]) * (p[c] - p[a]),
      ];
      area += Math.hypot(...cross) / 2;
    }
    expect(area).toBeCloseTo(7, 4);
  });
});
