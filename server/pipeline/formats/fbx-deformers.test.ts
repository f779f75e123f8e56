// Invariant: the skinned and morphed real assets (tests/fixtures/assets, written by Blender's glTF
// exporter) keep their skins (joints, weights, inverse bind matrices, bone world matrices at rest)
// and morph targets (names, offsets, default weights, weight keys) through Kiln's FBX writer and
// reader, and `assimp info` reads the file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decode, encode, worldMatrices } from "./index";
import { readBinary } from "./fbx-deformers.test-util";
import { readAsset } from "../../../tests/fixtures/assets/read";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";

const dir = mkdtempSync(join(tmpdir(), "kiln-fbx-deformers-"));
const close = (a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined, eps: number, what: string) => {
  expect(a?.length, what).toBe(b?.length);
  for (let i = 0; i < (a?.length ?? 0); i++) if (!(Math.abs(a![i] - b![i]) <= eps)) expect([what, i, a![i]]).toEqual([what, i, b![i]]);
};

async function roundTrip(name: string) {
  const src = (await readAsset(name)).scene;
  const enc = await encode("fbx", src, name);
  const file = join(dir, `${name}.fbx`);
  writeFileSync(file, enc.files[0].bytes);
  const dst = (await decode("fbx", new Map([[`${name}.fbx`, enc.files[0].bytes]]), `${name}.fbx`)).scene;
  return { src, dst, file, warnings: enc.warnings, bytes: enc.files[0].bytes };
}

describe("FBX skins", () => {
  it("keep joints, weights, inverse bind matrices and the bones' rest pose (03_skinned_cylinder)", async () => {
    const { src, dst, file, warnings, bytes } = await roundTrip("03_skinned_cylinder");
    expect(warnings.filter((w) => /skin/.test(w) && /dropped/.test(w))).toEqual([]);
    // The mesh whose joints hang below it is written on a marked child model and read back onto its node.
    expect(warnings).toContain('fbx: skinned mesh of node "Cylinder" moved to child node "Cylinder_mesh" (its joints are below it)');
    expect(dst.nodes.map((n) => [n.name, n.parent === null ? null : dst.nodes[n.parent].name]).sort()).toEqual(src.nodes.map((n) => [n.name, n.parent === null ? null : src.nodes[n.parent].name]).sort());
    const kinds = readBinary(bytes);
    expect(kinds).toContain("Deformer Skin");
    expect(kinds.filter((k) => k === "Deformer Cluster")).toHaveLength(4);
    expect(kinds.filter((k) => k === "Model LimbNode")).toHaveLength(4);
    expect(kinds).toContain("Pose BindPose");
    const byName = (scene: typeof src, n: string) => scene.nodes.findIndex((x) => x.name === n);
    const srcMeshNode = src.nodes.find((n) => n.skin !== undefined)!, dstMeshNode = dst.nodes.find((n) => n.name === srcMeshNode.name)!;
    expect(dstMeshNode.skin).toBeDefined();
    const s = src.skins![srcMeshNode.skin!], d = dst.skins![dstMeshNode.skin!];
    expect(d.joints.map((j) => dst.nodes[j].name)).toEqual(s.joints.map((j) => src.nodes[j].name));
    close(d.inverseBindMatrices, s.inverseBindMatrices, 1e-5, "inverse bind matrices");
    const m = src.meshes[srcMeshNode.mesh!], dm = dst.meshes[dstMeshNode.mesh!];
    close(dm.positions, m.positions, 1e-6, "positions");
    // Per vertex, the weight of each joint (slot order is free).
    const perJoint = (joints: Uint16Array, weights: Float32Array, v: number) => {
      const out = new Array(s.joints.length).fill(0);
      for (let k = 0; k < 4; k++) out[joints[v * 4 + k]] += weights[v * 4 + k];
      return out;
    };
    for (let v = 0; v < m.positions.length / 3; v++) close(perJoint(dm.joints!, dm.weights!, v), perJoint(m.joints!, m.weights!, v), 1e-6, `weights of vertex ${v}`);
    const [ws, wd] = [worldMatrices(src), worldMatrices(dst)];
    for (const j of s.joints) close(wd[byName(dst, src.nodes[j].name)].elements, ws[j].elements, 1e-5, `world matrix of ${src.nodes[j].name}`);
    const info = assimpInfo(file);
    expect(info, "assimp is installed").toBeTruthy();
    expect(info!.exitCode, info!.output).toBe(0);
  });
});

describe("FBX morph targets", () => {
  it("keep names, offsets, default weights and weight keys (01_morphed_cube)", async () => {
    const { src, dst, file, warnings, bytes } = await roundTrip("01_morphed_cube");
    expect(warnings.filter((w) => /morph/.test(w))).toEqual([]);
    const kinds = readBinary(bytes);
    expect(kinds).toContain("Deformer BlendShape");
    expect(kinds.filter((k) => k === "Geometry Shape")).toHaveLength(2);
    const n = src.nodes.find((x) => x.mesh !== undefined)!, dn = dst.nodes.find((x) => x.name === n.name)!;
    const m = src.meshes[n.mesh!], dm = dst.meshes[dn.mesh!];
    expect(dm.morphTargets!.map((t) => t.name)).toEqual(m.morphTargets!.map((t) => t.name));
    m.morphTargets!.forEach((t, k) => close(dm.morphTargets![k].positions, t.positions, 1e-6, `target ${t.name}`));
    m.morphTargets!.forEach((t, k) => t.normals && close(dm.morphTargets![k].normals, t.normals, 1e-6, `target ${t.name} normals`));
    expect(dn.morphWeights ?? dm.morphWeights).toEqual(n.morphWeights ?? m.morphWeights);
    const a = src.animations.find((x) => x.weights)!, da = dst.animations.find((x) => x.weights);
    expect(da, "weight animation read back").toBeDefined();
    expect(dst.nodes[da!.node].name).toBe(src.nodes[a.node].name);
    close(da!.times, a.times, 1e-6, "key times");
    close(da!.weights!.flat(), a.weights!.flat(), 1e-6, "key weights");
    const info = assimpInfo(file);
    expect(info!.exitCode, info!.output).toBe(0);
  });
});
