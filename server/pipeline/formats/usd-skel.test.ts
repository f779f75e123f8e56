// Invariant: the skinned, morphed and animated real assets (tests/fixtures/assets, written by
// Blender's glTF exporter) keep through Kiln's USDA writer and reader (UsdSkel) their joints,
// weights (1e-6), inverse bind matrices (1e-5), joint world matrices at three times between keys
// (1e-4), and morph target names, offsets, default weights and weight keys; also when the USDA
// carries a Blender → Unity transfer (Kiln's axis and unit conversion on both sides). USD matrices
// are row vectors (translation in the last row), and UsdSkel written by others (Pixar's own
// example: relative paths, a subset of joints animated, unsampled channels) reads as USD poses it.
import { Matrix4 } from "three";
import { describe, expect, it } from "vitest";
import { decode, encode, worldMatrices, type InterchangeScene } from "./index";
import { sample } from "./usd-skel";
import { readAsset } from "../../../tests/fixtures/assets/read";
import { applyOperation } from "../../scene/apply";
import { applyChanges } from "../../scene/changes";
import { initialState } from "../../scene/state";
import type { AppId, SceneEntity } from "../../scene/types";
import { exportAsset } from "../export-scene";
import { planImport } from "../import-scene";

const bytes = (s: string) => new TextEncoder().encode(s);
const close = (a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined, eps: number, what: string) => {
  expect(a?.length, what).toBe(b?.length);
  for (let i = 0; i < (a?.length ?? 0); i++) if (!(Math.abs(a![i] - b![i]) <= eps)) expect([what, i, a![i]]).toEqual([what, i, b![i]]);
};

async function viaUsd(scene: InterchangeScene, name: string) {
  const enc = await encode("usd", scene, name);
  const dec = await decode("usd", new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
  return { enc, dec, text: new TextDecoder().decode(enc.files[0].bytes) };
}

/** The scene posed at time t: every animated channel sampled (linear, rotations spherical). */
function posedWorlds(scene: InterchangeScene, t: number): Matrix4[] {
  const nodes = scene.nodes.map((n) => ({ ...n }));
  for (const a of scene.animations)
    for (const [ch, field] of [["translations", "translation"], ["rotations", "rotation"], ["scales", "scale"]] as const)
      if (a[ch]) (nodes[a.node][field] as number[]) = sample({ times: a.times, values: a[ch] as number[][] }, t, ch === "rotations");
  return worldMatrices({ ...scene, nodes });
}

/** Per vertex, the weight of each of the skin's joints (slot order is free). */
const perJoint = (m: InterchangeScene["meshes"][number], joints: number, v: number) => {
  const out = new Array(joints).fill(0);
  for (let k = 0; k < 4; k++) out[m.joints![v * 4 + k]] += m.weights![v * 4 + k];
  return out;
};

/** Compares the skins (by joint names) and the joints' world matrices at rest and at `times`. */
function expectSameSkins(src: InterchangeScene, dst: InterchangeScene, times: number[]) {
  const skinned = src.nodes.filter((n) => n.skin !== undefined);
  expect(skinned.length).toBeGreaterThan(0);
  for (const n of skinned) {
    const d = dst.nodes.find((x) => x.name === n.name)!;
    expect(d.skin, `${n.name} skin`).toBeDefined();
    const s = src.skins![n.skin!], ds = dst.skins![d.skin!];
    expect(ds.joints.map((j) => dst.nodes[j].name)).toEqual(s.joints.map((j) => src.nodes[j].name));
    close(ds.inverseBindMatrices, s.inverseBindMatrices, 1e-5, "inverse bind matrices");
    const m = src.meshes[n.mesh!], dm = dst.meshes[d.mesh!];
    close(dm.positions, m.positions, 1e-6, "positions");
    for (let v = 0; v < m.positions.length / 3; v++) close(perJoint(dm, ds.joints.length, v), perJoint(m, s.joints.length, v), 1e-6, `weights of vertex ${v}`);
    for (const t of [undefined, ...times]) {
      const [ws, wd] = t === undefined ? [worldMatrices(src), worldMatrices(dst)] : [posedWorlds(src, t), posedWorlds(dst, t)];
      s.joints.forEach((j, k) => close(wd[ds.joints[k]].elements, ws[j].elements, 1e-4, `world matrix of ${src.nodes[j].name} at ${t ?? "rest"}`));
    }
  }
}

function expectSameMorphs(src: InterchangeScene, dst: InterchangeScene) {
  const morphed = src.nodes.filter((n) => n.mesh !== undefined && src.meshes[n.mesh].morphTargets?.length);
  expect(morphed.length).toBeGreaterThan(0);
  for (const n of morphed) {
    const dn = dst.nodes.find((x) => x.name === n.name)!;
    const m = src.meshes[n.mesh!], dm = dst.meshes[dn.mesh!];
    expect(dm.morphTargets!.map((t) => t.name)).toEqual(m.morphTargets!.map((t) => t.name));
    m.morphTargets!.forEach((t, k) => close(dm.morphTargets![k].positions, t.positions, 1e-6, `target ${t.name}`));
    m.morphTargets!.forEach((t, k) => close(dm.morphTargets![k].normals, t.normals, 1e-6, `target ${t.name} normals`));
    expect(dn.morphWeights ?? dm.morphWeights).toEqual(n.morphWeights ?? m.morphWeights);
    const keys = (s: InterchangeScene, node: number) => s.animations.filter((a) => a.node === node && a.weights);
    const [a] = keys(src, src.nodes.indexOf(n)), [da] = keys(dst, dst.nodes.indexOf(dn));
    expect(!!da, "weight keys read back").toBe(!!a);
    if (a) (close(da.times, a.times, 1e-6, "key times"), close(da.weights!.flat(), a.weights!.flat(), 1e-6, "key weights"));
  }
}

describe("USDA skins and morph targets (UsdSkel)", () => {
  it("keep joints, weights, bind matrices and the animated pose (03_skinned_cylinder)", async () => {
    const src = (await readAsset("03_skinned_cylinder")).scene;
    const { enc, dec, text } = await viaUsd(src, "cyl");
    expect(enc.warnings).toEqual([]);
    expect(dec.warnings).toEqual([]);
    expect(text).toMatch(/^def SkelRoot "cyl"/m);
    expect(text).toContain('uniform token[] joints = ["Joint_One", "Joint_One/Joint_Two", "Joint_One/Joint_Two/Joint_Three", "Joint_One/Joint_Two/Joint_Three/Joint_Four"]');
    expect(text).toMatch(/int\[\] primvars:skel:jointIndices = \[[^\]]*\] \(\s*elementSize = 4\s*interpolation = "vertex"\s*\)/);
    // Joints are the Skeleton's, not Xforms; everything else keeps its place in the hierarchy.
    const parents = (s: InterchangeScene) => s.nodes.map((n) => [n.name, n.parent === null ? null : s.nodes[n.parent].name]).sort();
    expect(parents(dec.scene)).toEqual(parents(src));
    expect(text).not.toMatch(/def Xform "Joint_/);
    expectSameSkins(src, dec.scene, [0.3, 1.01, 1.77]);
  });

  it("keep morph target names, offsets, normals, default weights and weight keys (01_morphed_cube)", async () => {
    const src = (await readAsset("01_morphed_cube")).scene;
    const { enc, dec, text } = await viaUsd(src, "cube");
    expect(enc.warnings).toEqual([]);
    expect(dec.warnings).toEqual([]);
    expect(text).toContain('uniform token[] skel:blendShapes = ["Bottom", "Top"]');
    expect(text).toMatch(/def BlendShape "Top"/);
    expectSameMorphs(src, dec.scene);
  });

  it("leave an animated cube without skin as plain xformOp keys (03_animated_cube)", async () => {
    const src = (await readAsset("03_animated_cube")).scene;
    const { dec, text } = await viaUsd(src, "anim");
    expect(text).not.toMatch(/Skel/);
    expect(dec.warnings).toEqual([]);
    const cube = (s: InterchangeScene) => s.nodes.findIndex((n) => n.name === "Cube");
    for (const t of [0.3, 1.01, 1.77]) close(posedWorlds(dec.scene, t)[cube(dec.scene)].elements, posedWorlds(src, t)[cube(src)].elements, 1e-4, `cube at ${t}`);
  });

  it("write matrices as USD row vectors: translation in the last row, and read them back so", async () => {
    const joint = (name: string, parent: number | null, y: number) => ({ name, parent, translation: [0, y, 0] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number] });
    const scene: InterchangeScene = {
      nodes: [joint("Hip", null, 0.5), joint("Knee", 0, 2), { ...joint("Leg", null, 0), mesh: 0, skin: 0 }],
      meshes: [{ name: "Tri", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2), joints: Uint16Array.of(1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0), weights: Float32Array.of(1, 0, 0, 0, 0.25, 0.75, 0, 0, 1, 0, 0, 0) }],
      materials: [], animations: [],
      skins: [{ name: "Rig", joints: [1, 0], inverseBindMatrices: Float32Array.from([...new Matrix4().makeTranslation(0, -2.5, 0).elements, ...new Matrix4().makeTranslation(0, -0.5, 0).elements]) }],
    };
    const { dec, text } = await viaUsd(scene, "rows");
    expect(text).toContain("uniform matrix4d[] bindTransforms = [((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0.5, 0, 1)), ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 2.5, 0, 1))]");
    expect(text).toContain("uniform matrix4d[] restTransforms = [((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0.5, 0, 1)), ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 2, 0, 1))]");
    // The skin lists Knee first, the Skeleton parents first: skel:joints keeps the skin's order.
    expect(text).toContain('uniform token[] skel:joints = ["Hip/Knee", "Hip"]');
    expect(text).toContain("elementSize = 2");
    expectSameSkins(scene, dec.scene, []);
  });

  it("survive a Blender → Unity transfer through USDA (Kiln's axis and unit conversion both ways)", async () => {
    for (const name of ["03_skinned_cylinder", "01_morphed_cube"]) {
      type State = Map<string, SceneEntity>;
      const state = new Map(initialState()) as State;
      const importInto = (app: AppId, scene: InterchangeScene, group: string) => {
        const out = applyOperation(state, { tool: "import_asset", app, params: { plan: planImport(app, scene, group).plan } });
        applyChanges(state, out.changes);
        return (out.result as { roots: string[] }).roots[0];
      };
      const src = (await readAsset(name)).scene;
      const root = importInto("blender", src, name);
      const options = { applyModifiers: true, includeAnimations: true };
      const sent = await viaUsd(exportAsset(state, "blender", root, options).scene, name);
      expect(sent.enc.warnings.filter((w) => /skin|morph|joint/.test(w))).toEqual([]);
      expect(sent.dec.warnings).toEqual([]);
      const unityRoot = importInto("unity", sent.dec.scene, root);
      const back = exportAsset(state, "unity", unityRoot, options).scene;
      if (src.skins) expectSameSkins(src, back, [0.3, 1.01, 1.77]);
      else expectSameMorphs(src, back);
    }
  });
});

/** Pixar's UsdSkel "arm" example (schema overview), with a triangle for the arm. */
const ARM = `#usda 1.0
(
    startTimeCode = 1
    endTimeCode = 10
    metersPerUnit = 0.01
)
def SkelRoot "Model" (
    prepend apiSchemas = ["SkelBindingAPI"]
)
{
    def Skeleton "Skel" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        uniform token[] joints = ["Shoulder", "Shoulder/Elbow", "Shoulder/Elbow/Hand"]
        uniform matrix4d[] bindTransforms = [
            ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)),
            ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,2,1)),
            ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,4,1))
        ]
        uniform matrix4d[] restTransforms = [
            ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)),
            ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,2,1)),
            ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,2,1))
        ]
        def SkelAnimation "Anim" {
            uniform token[] joints = ["Shoulder/Elbow"]
            float3[] translations = [(0,0,2)]
            quatf[] rotations.timeSamples = {
                1: [(1,0,0,0)],
                10: [(0.7071, 0.7071, 0, 0)]
            }
            half3[] scales = [(1,1,1)]
        }
        rel skel:animationSource = <Anim>
    }
    def Mesh "Arm" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0.5,0,0), (0.5,0,2), (0.5,0,4)]
        uniform token subdivisionScheme = "none"
        int[] primvars:skel:jointIndices = [0, 1, 2] (
            elementSize = 1
            interpolation = "vertex"
        )
        float[] primvars:skel:jointWeights = [1, 1, 1] (
            elementSize = 1
            interpolation = "vertex"
        )
        rel skel:skeleton = <../Skel>
    }
}
`;

describe("UsdSkel written by other tools", () => {
  it("reads Pixar's arm example: relative paths, one joint animated, centimetres", async () => {
    const { scene, warnings } = await decode("usd", new Map([["arm.usda", bytes(ARM)]]), "arm.usda");
    expect(warnings.filter((w) => !/normals computed/.test(w))).toEqual([]);
    const names = scene.nodes.map((n) => n.name);
    // The untransformed mesh is its parent's attachment, as for any USD mesh.
    expect(names).toEqual(["Model", "Shoulder", "Elbow", "Hand"]);
    expect(scene.nodes[0].mesh).toBe(0);
    const skin = scene.skins![scene.nodes[0].skin!];
    expect(skin.joints.map((j) => scene.nodes[j].name)).toEqual(["Shoulder", "Elbow", "Hand"]);
    // Bind translation (0, 0, 4) cm in the last row: the inverse bind moves -0.04 m along Z.
    close(skin.inverseBindMatrices.slice(32), new Matrix4().makeTranslation(0, 0, -0.04).elements, 1e-7, "hand inverse bind");
    expect(scene.nodes[3].translation).toEqual([0, 0, 0.02]);
    const [a] = scene.animations;
    expect(scene.nodes[a.node].name).toBe("Elbow");
    expect(a.times).toEqual([1 / 24, 10 / 24]);
    expect(a.translations).toBeUndefined(); // unsampled: the node's own value
    // At frame 10 the elbow has turned 90° about X: the hand's 2 cm along Z now point along -Y.
    const hand = posedWorlds(scene, 10 / 24)[3];
    close([hand.elements[12], hand.elements[13], hand.elements[14]], [0, -0.02, 0.02], 1e-5, "hand at frame 10");
    expect(Array.from(scene.meshes[0].weights!)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
  });
});

/** In the style of Blender's USD exporter: Z up, a SkelRoot armature, faceVarying normals, a geomBindTransform, sparse shape keys. */
const BLENDER_STYLE = `#usda 1.0
(
    defaultPrim = "root"
    metersPerUnit = 1
    upAxis = "Z"
    timeCodesPerSecond = 24
)
def Xform "root"
{
    def SkelRoot "Armature"
    {
        matrix4d xformOp:transform = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
        uniform token[] xformOpOrder = ["xformOp:transform"]

        def Skeleton "Armature" (
            prepend apiSchemas = ["SkelBindingAPI"]
        )
        {
            uniform matrix4d[] bindTransforms = [((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)), ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 1, 1))]
            uniform token[] joints = ["Bone", "Bone/Bone_001"]
            uniform matrix4d[] restTransforms = [((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)), ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 1, 1))]
            rel skel:animationSource = </root/Armature/Armature/Anim>

            def SkelAnimation "Anim"
            {
                uniform token[] joints = ["Bone", "Bone/Bone_001"]
                float3[] translations = [(0, 0, 0), (0, 0, 1)]
                quatf[] rotations.timeSamples = {
                    1: [(1, 0, 0, 0), (1, 0, 0, 0)],
                    25: [(1, 0, 0, 0), (0.70710677, 0.70710677, 0, 0)],
                }
                half3[] scales = [(1, 1, 1), (1, 1, 1)]
                uniform token[] blendShapes = ["Key_1"]
                float[] blendShapeWeights.timeSamples = {
                    1: [0],
                    25: [1],
                }
            }
        }

        def Xform "Grid"
        {
            def Mesh "Grid" (
                prepend apiSchemas = ["SkelBindingAPI"]
            )
            {
                int[] faceVertexCounts = [4]
                int[] faceVertexIndices = [0, 1, 2, 3]
                normal3f[] normals = [(0, -1, 0), (0, -1, 0), (0, -1, 0), (0, -1, 0)] (
                    interpolation = "faceVarying"
                )
                point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 0, 2), (0, 0, 2)]
                int[] primvars:skel:jointIndices = [0, 1, 0, 1, 1, 0, 1, 0] (
                    elementSize = 2
                    interpolation = "vertex"
                )
                float[] primvars:skel:jointWeights = [1, 0, 1, 0, 1, 0, 1, 0] (
                    elementSize = 2
                    interpolation = "vertex"
                )
                matrix4d primvars:skel:geomBindTransform = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0.5, 1))
                uniform token[] skel:blendShapes = ["Key_1"]
                rel skel:blendShapeTargets = </root/Armature/Grid/Grid/Key_1>
                rel skel:skeleton = </root/Armature/Armature>
                uniform token subdivisionScheme = "none"

                def BlendShape "Key_1"
                {
                    uniform vector3f[] offsets = [(0, 0, 0.25)]
                    uniform int[] pointIndices = [2]
                }
            }
        }
    }
}
`;

describe("UsdSkel in the style of Blender's USD exporter", () => {
  it("reads joints, faceVarying corners skinned by their points, a geomBindTransform and a sparse shape key, Z up", async () => {
    const { scene, warnings } = await decode("usd", new Map([["b.usda", bytes(BLENDER_STYLE)]]), "b.usda");
    expect(warnings.filter((w) => !/triangulated/.test(w))).toEqual([]);
    const grid = scene.nodes.find((n) => n.name === "Grid")!;
    const mesh = scene.meshes[grid.mesh!], skin = scene.skins![grid.skin!];
    expect(skin.joints.map((j) => scene.nodes[j].name)).toEqual(["Bone", "Bone_001"]);
    // The inverse bind is bind⁻¹ · geomBind: Bone_001's takes 1 off Z and adds the mesh's 0.5.
    close(skin.inverseBindMatrices.slice(16), new Matrix4().makeTranslation(0, 0, -0.5).elements, 1e-7, "Bone_001 inverse bind");
    // Four corners (faceVarying normals): each takes its point's influences.
    const byCorner = [0, 1, 2, 3].map((v) => [mesh.joints![4 * v], mesh.weights![4 * v]]);
    const pointOfCorner = [0, 1, 2, 3].map((v) => [0, 1, 2, 3].find((p) => [0, 0, 0, 1, 0, 0, 1, 0, 2, 0, 0, 2].slice(3 * p, 3 * p + 3).every((x, k) => Math.abs(x - mesh.positions[3 * v + k]) < 1e-6))!);
    expect(byCorner).toEqual(pointOfCorner.map((p) => [p < 2 ? 0 : 1, 1]));
    const key = mesh.morphTargets![0];
    expect(key.name).toBe("Key_1");
    const moved = pointOfCorner.findIndex((p) => p === 2);
    close(key.positions.slice(3 * moved, 3 * moved + 3), [0, 0, 0.25], 1e-7, "sparse offset of point 2");
    expect(Array.from(key.positions).filter((x) => x !== 0)).toHaveLength(1);
    expect(scene.animations.find((a) => a.weights)).toMatchObject({ node: scene.nodes.indexOf(grid), times: [1 / 24, 25 / 24], weights: [[0], [1]] });
    // Z up: the armature stands upright, Bone_001 one metre above Bone along +Y.
    const worlds = worldMatrices(scene);
    const bone1 = worlds[scene.nodes.findIndex((n) => n.name === "Bone_001")];
    close([bone1.elements[12], bone1.elements[13], bone1.elements[14]], [0, 1, 0], 1e-6, "Bone_001 world position");
  });
});

describe("UsdSkel details of the reader", () => {
  it("turns a top-level Skeleton of a Z-up stage upright, its animated root joint too", async () => {
    const usda = `#usda 1.0\n(\n    upAxis = "Z"\n    metersPerUnit = 1\n)\ndef Skeleton "S"\n{\n    uniform token[] joints = ["A", "A/B"]\n    uniform matrix4d[] restTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,1,1))]\n    rel skel:animationSource = </S/Anim>\n    def SkelAnimation "Anim"\n    {\n        uniform token[] joints = ["A"]\n        float3[] translations.timeSamples = {\n            0: [(0, 0, 0)],\n            24: [(0, 0, 2)],\n        }\n    }\n}\n`;
    const { scene, warnings } = await decode("usd", new Map([["z.usda", bytes(usda)]]), "z.usda");
    expect(warnings).toEqual([]);
    const b = scene.nodes.findIndex((n) => n.name === "B");
    const at = (t: number) => Array.from(posedWorlds(scene, t)[b].elements.slice(12, 15));
    close(at(0), [0, 1, 0], 1e-6, "B at rest, Z up read as Y up");
    close(at(1), [0, 3, 0], 1e-6, "B after A moved 2 m up");
  });

  it("reads a matrix xformOp:transform as USD's rows (translation last)", async () => {
    const usda = `#usda 1.0\n(\n    metersPerUnit = 0.01\n)\ndef Xform "X"\n{\n    matrix4d xformOp:transform = ((0, 1, 0, 0), (-1, 0, 0, 0), (0, 0, 1, 0), (100, 200, 300, 1))\n    uniform token[] xformOpOrder = ["xformOp:transform"]\n}\n`;
    const { scene, warnings } = await decode("usd", new Map([["x.usda", bytes(usda)]]), "x.usda");
    expect(warnings).toEqual([]);
    close(scene.nodes[0].translation, [1, 2, 3], 1e-9, "translation in metres");
    // Row vectors: the X axis maps to +Y, a +90° turn about Z.
    close(scene.nodes[0].rotation, [0, 0, Math.SQRT1_2, Math.SQRT1_2], 1e-9, "rotation");
  });
});

describe("skins the writer has to arrange", () => {
  it("puts two skins sharing joints on one Skeleton and moves a node out from under a joint, with a warning", async () => {
    const node = (name: string, parent: number | null, t: [number, number, number], extra = {}) => ({ name, parent, translation: t, rotation: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number], ...extra });
    const tri = (name: string) => ({ name, positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2), joints: Uint16Array.of(0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), weights: Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0) });
    const ibm = (...ys: number[]) => Float32Array.from(ys.flatMap((y) => new Matrix4().makeTranslation(0, -y, 0).elements));
    const scene: InterchangeScene = {
      nodes: [node("Rig", null, [0, 0, 0]), node("A", 0, [0, 1, 0]), node("B", 1, [0, 1, 0]), node("C", 2, [0, 1, 0]), node("Prop", 2, [1, 0, 0]), node("M1", null, [0, 0, 0], { mesh: 0, skin: 0 }), node("M2", null, [0, 0, 0], { mesh: 1, skin: 1 })],
      meshes: [tri("T1"), tri("T2")], materials: [],
      animations: [{ node: 2, times: [0, 1], rotations: [[0, 0, 0, 1], [Math.SQRT1_2, 0, 0, Math.SQRT1_2]] }],
      skins: [{ name: "S1", joints: [1, 2], inverseBindMatrices: ibm(1, 2) }, { name: "S2", joints: [2, 3], inverseBindMatrices: ibm(2, 3) }],
    };
    const { enc, dec, text } = await viaUsd(scene, "two");
    expect(text.match(/def Skeleton /g)).toHaveLength(1);
    expect(text).toContain('uniform token[] joints = ["A", "A/B", "A/B/C"]');
    expect(enc.warnings).toEqual(['usd: node "Prop" moved out from under joint "B" (USD has no prims below joints), at its rest placement; animation no longer moves it']);
    expect(dec.warnings).toEqual([]);
    const { Prop: _moved, ...rest } = Object.fromEntries(scene.nodes.map((n) => [n.name, n]));
    void _moved;
    expect(Object.keys(rest).length).toBe(6);
    expectSameSkins(scene, dec.scene, [0.5]);
    const prop = dec.scene.nodes.find((n) => n.name === "Prop")!;
    expect(dec.scene.nodes[prop.parent!].name).toBe("Rig");
    close(worldMatrices(dec.scene)[dec.scene.nodes.indexOf(prop)].elements, worldMatrices(scene)[4].elements, 1e-6, "Prop at rest");
  });

  it("keeps a morphed mesh's own default weights apart from two nodes' weights, and sparse targets", async () => {
    const n = (name: string, morphWeights?: number[]) => ({ name, parent: null, translation: [0, 0, 0] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number], mesh: 0, ...(morphWeights ? { morphWeights } : {}) });
    const positions = new Float32Array(3 * 10).map((_, k) => k % 7);
    const scene: InterchangeScene = {
      nodes: [n("A", [0.25, 1]), n("B")],
      meshes: [{ name: "Strip", positions, normals: new Float32Array(30).fill(0).map((_, k) => (k % 3 === 2 ? 1 : 0)), indices: Uint32Array.of(0, 1, 2, 3, 4, 5), morphTargets: [{ name: "one point", positions: new Float32Array(30).fill(0).fill(0.5, 9, 12) }, { name: "all", positions: new Float32Array(30).fill(0.125) }], morphWeights: [0.5, 0] }],
      materials: [], animations: [{ node: 1, times: [0, 0.5], weights: [[0, 0], [1, 0.5]] }],
    };
    const { enc, dec, text } = await viaUsd(scene, "strip");
    expect(enc.warnings).toEqual([]);
    expect(text).toContain("uniform int[] pointIndices = [3]");
    expect(text).toContain("float[] kilnMorphWeights = [0.5, 0]");
    expectSameMorphs(scene, dec.scene);
    expect(dec.scene.meshes.map((m) => m.morphTargets!.map((t) => t.name))).toEqual([["one point", "all"]]);
    expect(dec.scene.meshes[0].morphWeights).toEqual([0.5, 0]);
    expect(dec.scene.nodes.map((x) => x.morphWeights)).toEqual([[0.25, 1], undefined]);
  });
});
