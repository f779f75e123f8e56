/**
 * Real Blender 3.4 reads Kiln's glTF of the real Blender assets (tests/fixtures/assets): each
 * fixture is imported into Kiln's Blender scene, transferred to Unity and back to Blender (glTF
 * files each way, as transfer_asset does), written once more as glTF, and Blender's importer
 * reports the same UV layers, colour attributes, material slots, vertex groups, shape keys,
 * armature bones and images as for the original file; the skinned, animated cylinder keeps every
 * bone's world matrix within 1e-4 at three frames.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyOperation } from "../../server/scene/apply";
import { applyChanges } from "../../server/scene/changes";
import { initialState } from "../../server/scene/state";
import type { AppId, SceneEntity } from "../../server/scene/types";
import { exportAsset } from "../../server/pipeline/export-scene";
import { decode, encode, type InterchangeScene } from "../../server/pipeline/formats";
import { planImport } from "../../server/pipeline/import-scene";
import { ASSETS, ASSETS_DIR, readAsset } from "../fixtures/assets/read";
import { runBlender } from "./blender";

type State = Map<string, SceneEntity>;
interface Report {
  meshes: Record<string, { uv_layers: number; color_attributes: number; material_slots: number; vertex_groups: string[]; shape_keys: string[] }>;
  armatures: Record<string, string[]>; images: number; poses: Record<string, number[][]>;
}

function importInto(state: State, app: AppId, scene: InterchangeScene, name: string): string {
  const out = applyOperation(state, { tool: "import_asset", app, params: { plan: planImport(app, scene, name).plan } });
  applyChanges(state, out.changes);
  return (out.result as { roots: string[] }).roots[0];
}
const viaGltf = async (scene: InterchangeScene) => {
  const enc = await encode("gltf", scene, "asset");
  return (await decode("gltf", new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name)).scene;
};

const dir = mkdtempSync(path.join(tmpdir(), "kiln-assets-"));
const opts = { applyModifiers: true, includeAnimations: true };

describe.each(ASSETS)("Blender imports Kiln's round trip of %s", (name) => {
  it("with the same asset data as the original", async () => {
    const state = new Map(initialState()) as State;
    const src = (await readAsset(name)).scene;
    const root = importInto(state, "blender", src, name);
    const unityRoot = importInto(state, "unity", await viaGltf(exportAsset(state, "blender", root, opts).scene), root);
    // Back into a fresh Blender scene, so no name clashes with the first import rename anything.
    const back = new Map(initialState()) as State;
    const backRoot = importInto(back, "blender", await viaGltf(exportAsset(state, "unity", unityRoot, opts).scene), unityRoot);
    const enc = await encode("gltf", exportAsset(back, "blender", backRoot, opts).scene, name);
    const file = path.join(dir, `${name}.glb`);
    writeFileSync(file, enc.files[0].bytes);
    const original = runBlender<Report>("asset_report.py", [path.join(ASSETS_DIR, name, `${name}.gltf`)]);
    const kiln = runBlender<Report>("asset_report.py", [file]);
    // Blender names a mesh object after its node. Kiln carries triangle meshes only: a mesh of
    // points or lines alone (22_vertex_color has some) is dropped with a warning on import.
    const triangleMeshes = src.nodes.filter((n) => n.mesh !== undefined).map((n) => n.name).sort();
    const values = (r: Report) => triangleMeshes.map((k) => [k, r.meshes[k]]);
    expect(values(kiln)).toEqual(values(original));
    expect(Object.values(kiln.armatures).sort()).toEqual(Object.values(original.armatures).sort());
    expect(kiln.images).toBe(original.images);
    for (const [bone, frames] of Object.entries(original.poses)) {
      const seen = kiln.poses[bone];
      expect(seen, `bone ${bone}`).toBeDefined();
      expect(seen.length).toBe(frames.length);
      frames.forEach((m, f) => m.forEach((v, k) => expect(Math.abs(seen[f][k] - v), `bone ${bone} frame ${f} entry ${k}`).toBeLessThan(1e-4)));
    }
  });
});
