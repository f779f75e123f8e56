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
import { readFbxBinary, text, writeFbxBinary, type FbxNode } from "./fbx-binary";
import type { InterchangeScene } from "./interchange";
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

/** A triangle skinned to five joints (vertex k to joints k and k+1), with one morph target. */
function smallScene(): InterchangeScene {
  const joint = (k: number) => ({ name: `J${k}`, parent: k ? k - 1 : null, translation: [0, k ? 1 : 0, 0] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number] });
  const ibm = Array.from({ length: 5 }, (_, k) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -k, 0, 1]).flat();
  return {
    nodes: [...[0, 1, 2, 3, 4].map(joint), { name: "Skinned", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0, skin: 0 }],
    meshes: [{
      name: "Tri", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2),
      joints: Uint16Array.of(0, 1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0), weights: Float32Array.of(0.75, 0.25, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0),
      morphTargets: [{ name: "Up", positions: Float32Array.of(0, 0, 1, 0, 0, 0, 0, 0, 0) }], morphWeights: [0.5],
    }],
    materials: [], animations: [], skins: [{ name: "Rig", joints: [0, 1, 2, 3, 4], inverseBindMatrices: Float32Array.from(ibm) }],
  };
}

/** Encodes the small scene, lets `edit` change the file's objects, and decodes it. */
async function decodeEdited(edit: (objects: FbxNode[]) => void) {
  const enc = await encode("fbx", smallScene(), "small");
  const doc = readFbxBinary(enc.files[0].bytes);
  edit(doc.nodes.find((n) => n.name === "Objects")!.children);
  return decode("fbx", new Map([["small.fbx", writeFbxBinary(doc)]]), "small.fbx");
}
const cluster = (objects: FbxNode[], name: string) => objects.find((n) => n.name === "Deformer" && text(n.properties[2]) === "Cluster" && text(n.properties[1]).startsWith(`${name}\0`))!;
const setArray = (n: FbxNode, name: string, p: FbxNode["properties"][number]) => (n.children.find((c) => c.name === name)!.properties = [p]);

describe("FBX deformers from hostile or foreign files", () => {
  it("read a small skinned, morphed scene back exactly", async () => {
    const { scene, warnings } = await decodeEdited(() => {});
    expect(warnings).toEqual([]);
    const src = smallScene();
    expect(scene.skins![0].joints.map((j) => scene.nodes[j].name)).toEqual(["J0", "J1", "J2", "J3", "J4"]);
    close(scene.skins![0].inverseBindMatrices, src.skins![0].inverseBindMatrices, 1e-6, "ibm");
    // Per vertex, each joint's weight (a zero weight names no joint in FBX).
    const perJoint = (m: InterchangeScene["meshes"][number]) => [0, 1, 2].map((v) => [0, 1, 2, 3].reduce((o, k) => ((o[m.joints![v * 4 + k]] += m.weights![v * 4 + k]), o), [0, 0, 0, 0, 0]));
    close(perJoint(scene.meshes[0]).flat(), perJoint(src.meshes[0]).flat(), 1e-6, "weights");
    expect(scene.meshes[0].morphWeights).toEqual([0.5]);
  });

  it("keeps the 4 strongest of more than 4 weights, renormalised, with a warning", async () => {
    const { scene, warnings } = await decodeEdited((objects) => {
      // Vertex 0 also in J2 (0.5), J3 (0.25), J4 (0.125): five influences.
      for (const [name, w] of [["J2", 0.5], ["J3", 0.25], ["J4", 0.125]] as const) {
        const c = cluster(objects, name);
        const idx = c.children.find((x) => x.name === "Indexes")!.properties[0].value as Int32Array;
        const wts = c.children.find((x) => x.name === "Weights")!.properties[0].value as Float64Array;
        setArray(c, "Indexes", { type: "i", value: Int32Array.of(0, ...idx) });
        setArray(c, "Weights", { type: "d", value: Float64Array.of(w, ...wts) });
      }
    });
    expect(warnings).toContain('fbx: mesh "Tri": 1 vertices have more than 4 joint weights; the 4 strongest kept, renormalised');
    const m = scene.meshes[0], names = scene.skins![0].joints.map((j) => scene.nodes[j].name);
    const v0 = Object.fromEntries([0, 1, 2, 3].map((k) => [names[m.joints![k]], m.weights![k]]));
    const sum = 0.75 + 0.5 + 0.25 + 0.25;
    expect(Object.keys(v0).sort()).toEqual(["J0", "J1", "J2", "J3"]);
    for (const [j, w] of Object.entries({ J0: 0.75, J1: 0.25, J2: 0.5, J3: 0.25 })) expect(v0[j]).toBeCloseTo(w / sum, 6);
  });

  it("refuses cluster indices outside the vertices, non-finite weights and mismatched shapes with clear errors", async () => {
    await expect(decodeEdited((o) => setArray(cluster(o, "J1"), "Indexes", { type: "i", value: Int32Array.of(0, 3) }))).rejects.toThrow('fbx: skin of mesh "Tri": cluster "J1" refers to vertex 3 of 3');
    await expect(decodeEdited((o) => setArray(cluster(o, "J1"), "Weights", { type: "d", value: Float64Array.of(NaN, 0.5) }))).rejects.toThrow("weight that is not finite");
    await expect(decodeEdited((o) => setArray(cluster(o, "J1"), "Transform", { type: "d", value: new Float64Array(16).fill(Infinity) }))).rejects.toThrow("Transform is not 16 finite numbers");
    const shape = (o: FbxNode[]) => o.find((n) => n.name === "Geometry" && text(n.properties[2]) === "Shape")!;
    await expect(decodeEdited((o) => setArray(shape(o), "Vertices", { type: "d", value: Float64Array.of(0, 0) }))).rejects.toThrow('"Up" has 1 indexes and 2 coordinates');
    await expect(decodeEdited((o) => setArray(shape(o), "Indexes", { type: "i", value: Int32Array.of(-1) }))).rejects.toThrow('"Up" refers to vertex -1 of 3');
    await expect(decodeEdited((o) => setArray(shape(o), "Vertices", { type: "d", value: Float64Array.of(0, 0, Infinity) }))).rejects.toThrow("offsets that are not finite");
  });
});
