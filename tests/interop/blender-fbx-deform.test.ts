/**
 * Real Blender 3.4 imports Kiln's FBX of the skinned and morphed real assets
 * (tests/fixtures/assets) with the same armature bones (heads at rest, and the deformation each
 * bone applies at several frames, within 1e-4), vertex groups (weights within 1e-4) and shape
 * keys (names, values at a frame, offsets, weight keys) as the original glTF imported into Blender;
 * and Kiln reads Blender's own FBX of the skinned asset with the same joints and skinned rest mesh.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Matrix4, Vector3 } from "three";
import { decode, encode, worldMatrices, type InterchangeScene } from "../../server/pipeline/formats";
import { ASSETS_DIR, readAsset } from "../fixtures/assets/read";
import { runBlender } from "./blender";

interface Report {
  bones: Record<string, { head: number[]; frames: number[][] }>;
  meshes: Record<string, { groups: string[]; weights: Record<string, Record<string, number>>; shape_keys: { name: string; value: number; offsets: Record<string, number[]>; keys: number[][] }[]; armature: boolean }>;
}

const dir = mkdtempSync(path.join(tmpdir(), "kiln-fbx-deform-"));
// Blender's FBX importer puts time 0 at frame 1 (its anim_offset option, default 1), its glTF
// importer at frame 0: the same moments are these frames in each.
const GLTF_FRAMES = ["0", "11", "24.5", "39"];
const near = (a: number[], b: number[], eps: number, what: string) => {
  expect(a.length, what).toBe(b.length);
  a.forEach((v, i) => expect(Math.abs(v - b[i]), `${what}[${i}]: ${v} vs ${b[i]}`).toBeLessThanOrEqual(eps));
};

async function reports(name: string, frames: string[]) {
  const enc = await encode("fbx", (await readAsset(name)).scene, name);
  const file = path.join(dir, `${name}.fbx`);
  writeFileSync(file, enc.files[0].bytes);
  const original = runBlender<Report>("deform_report.py", [path.join(ASSETS_DIR, name, `${name}.gltf`), ...frames]);
  const kiln = runBlender<Report>("deform_report.py", [file, ...frames.map((f) => String(Number(f) + 1))]);
  return { original, kiln, warnings: enc.warnings };
}

describe("Blender imports Kiln's FBX deformers", () => {
  it("03_skinned_cylinder: the same bones, rest pose, animated deformation and vertex groups", async () => {
    const { original, kiln } = await reports("03_skinned_cylinder", GLTF_FRAMES);
    expect(Object.keys(kiln.bones).sort()).toEqual(Object.keys(original.bones).sort());
    for (const [bone, want] of Object.entries(original.bones)) {
      near(kiln.bones[bone].head, want.head, 1e-4, `${bone} head`);
      want.frames.forEach((m, f) => near(kiln.bones[bone].frames[f], m, 1e-4, `${bone} deformation at glTF frame ${GLTF_FRAMES[f]}`));
    }
    for (const [object, want] of Object.entries(original.meshes)) {
      // Kiln moves a skinned mesh whose joints hang below it to a child model "<name>_mesh" (fbx.ts).
      // Blender's glTF importer names this object "Cylinder.001" (its armature takes "Cylinder").
      const only = Object.keys(kiln.meshes).length === 1 && Object.keys(original.meshes).length === 1;
      const got = kiln.meshes[object] ?? kiln.meshes[`${object}_mesh`] ?? (only ? Object.values(kiln.meshes)[0] : undefined);
      expect(got, object).toBeDefined();
      expect(got.armature, object).toBe(true);
      expect(got.groups, object).toEqual(want.groups);
      expect(Object.keys(got.weights).sort(), object).toEqual(Object.keys(want.weights).sort());
      for (const [at, w] of Object.entries(want.weights)) {
        expect(Object.keys(got.weights[at]).sort(), `${object} ${at}`).toEqual(Object.keys(w).sort());
        for (const [g, v] of Object.entries(w)) expect(Math.abs(got.weights[at][g] - v), `${object} ${at} ${g}`).toBeLessThanOrEqual(1e-4);
      }
    }
  });

  it("01_morphed_cube: the same shape keys (names, values, offsets) and their weight keys", async () => {
    // Values at a key (frame 24, t = 1 s): Kiln reads the fixture's CUBICSPLINE weights as LINEAR,
    // so between keys the original glTF import differs by design.
    const { original, kiln } = await reports("01_morphed_cube", ["24"]);
    for (const [object, want] of Object.entries(original.meshes)) {
      const got = kiln.meshes[object];
      expect(got.shape_keys.map((k) => [k.name, k.value]), object).toEqual(want.shape_keys.map((k) => [k.name, k.value]));
      want.shape_keys.forEach((k, i) => {
        expect(Object.keys(got.shape_keys[i].offsets).sort()).toEqual(Object.keys(k.offsets).sort());
        for (const [at, d] of Object.entries(k.offsets)) near(got.shape_keys[i].offsets[at], d, 1e-4, `${k.name} offset at ${at}`);
        near(got.shape_keys[i].keys.flat(), k.keys.flatMap(([frame, value]) => [frame + 1, value]), 1e-4, `${k.name} keys`);
      });
    }
  });
});

/**
 * Each vertex of each skinned mesh node posed at the first animation key (Σ w · world(joint) ·
 * IBM · v), rounded to 1e-4, distinct, sorted. The first key, not the nodes' static transforms:
 * Blender exports the pose of its current frame as the models' transforms.
 */
function skinnedAtFirstKey(scene: InterchangeScene): string[] {
  const posed = { ...scene, nodes: scene.nodes.map((n) => ({ ...n })) };
  for (const a of scene.animations) {
    const n = posed.nodes[a.node];
    if (a.translations) n.translation = a.translations[0];
    if (a.rotations) n.rotation = a.rotations[0];
    if (a.scales) n.scale = a.scales[0];
  }
  const worlds = worldMatrices(posed);
  const out: string[] = [];
  for (const n of scene.nodes) {
    if (n.skin === undefined || n.mesh === undefined) continue;
    const m = scene.meshes[n.mesh], skin = scene.skins![n.skin];
    const joint = skin.joints.map((j, k) => worlds[j].clone().multiply(new Matrix4().fromArray(skin.inverseBindMatrices, k * 16)));
    for (let v = 0; v < m.positions.length / 3; v++) {
      const p = new Vector3(), at = new Vector3().fromArray(m.positions, v * 3);
      for (let k = 0; k < 4; k++) if (m.weights![v * 4 + k] > 0) p.add(at.clone().applyMatrix4(joint[m.joints![v * 4 + k]]).multiplyScalar(m.weights![v * 4 + k]));
      out.push(p.toArray().map((c) => (Math.round(c * 1e4) / 1e4 + 0).toFixed(4)).join(","));
    }
  }
  return [...new Set(out)].sort();
}

describe("Kiln reads Blender's own skinned FBX", () => {
  it("03_skinned_cylinder via Blender's FBX exporter: the same joints and the same skinned mesh at the first key as the glTF", async () => {
    const src = (await readAsset("03_skinned_cylinder")).scene;
    const file = path.join(dir, "blender-skinned.fbx");
    runBlender("gltf_to_fbx.py", [path.join(ASSETS_DIR, "03_skinned_cylinder", "03_skinned_cylinder.gltf"), file]);
    const { scene, warnings } = await decode("fbx", new Map([["b.fbx", new Uint8Array(readFileSync(file))]]), "b.fbx");
    expect(warnings.filter((w) => /skin|joint/.test(w))).toEqual([]);
    const names = (s: InterchangeScene) => s.skins!.flatMap((k) => k.joints.map((j) => s.nodes[j].name)).sort();
    expect(names(scene)).toEqual(names(src));
    const [want, got] = [skinnedAtFirstKey(src), skinnedAtFirstKey(scene)];
    expect(got.length).toBe(want.length);
    expect(got).toEqual(want);
  });
});
