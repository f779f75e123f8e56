// Invariant: scene records → interchange → file → interchange → records keeps an asset where it
// was in the physical world: names, hierarchy, transforms and keyframes (within 1e-4 after axis
// conversion), triangle counts and material colours, for every format; and round trips between
// apps return the original transforms. What an option or format leaves out is a warning.
import { describe, expect, it } from "vitest";
import { applyOperation } from "../scene/apply";
import { applyChanges } from "../scene/changes";
import { initialState } from "../scene/state";
import type { AppId, SceneEntity } from "../scene/types";
import { worldMatrices as sceneWorlds } from "../scene/world";
import { basis, eulerToM3, lightFix, mul3, transpose3, type M3 } from "./axes";
import { completeKeys, exportAsset } from "./export-scene";
import { decode, encode, worldMatrices, type InterchangeScene, type TransferFormat } from "./formats";
import { planImport } from "./import-scene";

type State = Map<string, SceneEntity>;
const red = { r: 1, g: 0.25, b: 0, a: 1 };

function run(state: State, tool: string, app: AppId, params: Record<string, unknown>) {
  const out = applyOperation(state, { tool, app, params });
  applyChanges(state, out.changes);
  return out.result as any;
}

/** A parented, materialled, animated Blender asset: Robot (Empty) → Body (Cube, mirror) → Head (Sphere), Lamp (Spot). */
function blenderRobot(state: State, suffix = ""): string {
  const root = `Robot${suffix}`;
  run(state, "create_gameobject", "blender", { name: root, type: "Empty", position: { x: 1, y: 2, z: 3 }, rotation: { x: 10, y: 20, z: 30 } });
  run(state, "create_gameobject", "blender", { name: `Body${suffix}`, type: "Cube", parent: root, position: { x: 0, y: 0, z: 1 }, rotation: { x: 0, y: 0, z: 45 }, scale: { x: 1, y: 2, z: 0.5 } });
  run(state, "create_gameobject", "blender", { name: `Head${suffix}`, type: "Sphere", parent: `Body${suffix}`, position: { x: 0, y: 0, z: 2 } });
  run(state, "create_light", "blender", { name: `Lamp${suffix}`, type: "Spot", intensity: 3, color: red, range: 7, spot_angle: 40, parent: root, rotation: { x: 30, y: 0, z: 0 } });
  run(state, "create_material", "blender", { name: `Red${suffix}`, color: red, metallic: 0.2, roughness: 0.6 });
  run(state, "set_material", "blender", { target: `Body${suffix}`, material: `Red${suffix}` });
  run(state, "set_keyframe", "blender", { target: `Body${suffix}`, time: 0 });
  run(state, "set_keyframe", "blender", { target: `Body${suffix}`, time: 1, position: { z: 2 }, rotation: { z: 90 } });
  run(state, "set_keyframe", "blender", { target: `Body${suffix}`, time: 2, rotation: { z: 200 } });
  return root;
}

async function viaFile(format: TransferFormat, scene: InterchangeScene): Promise<InterchangeScene> {
  const enc = await encode(format, scene, "asset");
  return (await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name)).scene;
}

/** Exports `name` from `from`, carries it through a file and imports it into `to`; returns the import's result. */
async function transfer(state: State, from: AppId, to: AppId, name: string, format: TransferFormat) {
  const exported = exportAsset(state, from, name, { applyModifiers: true, includeAnimations: true });
  const { plan, warnings } = planImport(to, await viaFile(format, exported.scene), name);
  return { ...run(state, "transfer_asset", to, { plan }), warnings: [...exported.warnings, ...warnings] };
}

const objectsOf = (state: State, app: AppId) => new Map([...state.values()].flatMap((r) => (r.type === "object" && r.app === app ? [[r.name, r] as const] : [])));

/**
 * Physical (canonical) world matrix, upper 3x4 as 12 numbers: B · W · Bᵀ; for a light also · F,
 * so that its columns are the directions it shines along (-Z) and considers up (+Y) in every app.
 */
function physical(state: State, app: AppId, name: string): number[] {
  const objects = objectsOf(state, app);
  const w = sceneWorlds([...objects.values()]).get(name)!;
  const b = basis(app);
  const m3: M3 = [w[0], w[4], w[8], w[1], w[5], w[9], w[2], w[6], w[10]];
  const frame = mul3(mul3(b, m3), transpose3(b));
  return [...(objects.get(name)!.kind === "light" ? mul3(frame, lightFix(app)) : frame), ...[0, 1, 2].map((r) => b[r * 3] * w[12] + b[r * 3 + 1] * w[13] + b[r * 3 + 2] * w[14])];
}

const close = (a: number[], b: number[], tol: number, what: string) => {
  expect(a.length, what).toBe(b.length);
  a.forEach((v, i) => expect(Math.abs(v - b[i]), `${what}[${i}]: ${v} vs ${b[i]}`).toBeLessThan(tol));
};

const HIERARCHICAL: [AppId, AppId, TransferFormat][] = [
  ["blender", "unity", "fbx"], ["blender", "unity", "gltf"], ["blender", "unity", "usd"], ["blender", "godot", "gltf"], ["blender", "godot", "fbx"],
];

describe("export → file → import", () => {
  it.each(HIERARCHICAL)("%s → %s via %s keeps names, hierarchy, physical placement, keys and materials", async (from, to, format) => {
    const state = initialState();
    const root = blenderRobot(state);
    const r = await transfer(state, from, to, root, format);
    expect(r.counts).toMatchObject({ objects: 4, materials: 1 });
    const got = objectsOf(state, to), src = objectsOf(state, from);
    for (const name of ["Robot", "Body", "Head", "Lamp"]) {
      expect(got.get(name)?.parent ?? null, `parent of ${name}`).toBe(src.get(name)!.parent);
      close(physical(state, to, name), physical(state, from, name), 1e-4, `placement of ${name}`);
    }
    expect(r.counts.triangles).toBe(12 + (16 * 24 * 2 - 2 * 24));
    const body = got.get("Body")!;
    expect(body.material).toBe("Red");
    expect(state.get(`material/${to}/Red`)).toMatchObject({ color: red, metallic: 0.2, roughness: 0.6 });
    expect(body.keyframes.map((k) => k.time)).toEqual([0, 1, 2]);
    expect(got.get("Lamp")!.light).toMatchObject({ type: "Spot", intensity: 3, range: 7, spotAngle: 40 });
  });

  it.each(["fbx", "gltf", "usd"] as TransferFormat[])("Blender → Unity → Blender via %s returns every transform and key within 1e-4", async (format) => {
    const state = initialState();
    blenderRobot(state);
    await transfer(state, "blender", "unity", "Robot", format);
    const back = await transfer(state, "unity", "blender", "Robot", format === "gltf" || format === "usd" ? "fbx" : format);
    expect(back.roots).toEqual(["Robot.001"]);
    const objects = objectsOf(state, "blender");
    for (const name of ["Robot", "Body", "Head", "Lamp"]) {
      const a = objects.get(name)!, b = objects.get(`${name}.001`)!;
      for (const k of ["position", "rotation", "scale"] as const) close(Object.values(b[k]), Object.values(a[k]), 1e-4, `${k} of ${name}`);
      expect(b.keyframes.length).toBe(a.keyframes.length);
      completeKeys(a.keyframes).forEach((key, i) => {
        for (const ch of ["position", "rotation", "scale"] as const) if (key[ch]) close(Object.values(b.keyframes[i][ch]!), Object.values(key[ch]!), 1e-4, `key ${i} ${ch} of ${name}`);
      });
    }
  });

  it("Blender → Godot → Blender via glTF returns the same transforms and triangle counts", async () => {
    const state = initialState();
    blenderRobot(state);
    const there = await transfer(state, "blender", "godot", "Robot", "gltf");
    const back = await transfer(state, "godot", "blender", "Robot", "gltf");
    expect(back.counts.triangles).toBe(there.counts.triangles);
    const objects = objectsOf(state, "blender");
    for (const name of ["Robot", "Body", "Head", "Lamp"])
      for (const k of ["position", "rotation", "scale"] as const) close(Object.values(objects.get(`${name}.001`)![k]), Object.values(objects.get(name)![k]), 1e-4, `${k} of ${name}`);
  });

  it("OBJ carries the meshes in world space, grouped under an Empty named after the asset", async () => {
    const state = initialState();
    blenderRobot(state);
    const r = await transfer(state, "blender", "unity", "Robot", "obj");
    expect(r.roots).toEqual(["Robot"]);
    expect(r.objects.sort()).toEqual(["Body", "Head", "Robot"]);
    const got = objectsOf(state, "unity");
    expect(got.get("Body")).toMatchObject({ parent: "Robot", position: { x: 0, y: 0, z: 0 }, material: "Red", keyframes: [] });
  });
});

describe("export details", () => {
  it("places a child asset by its world transform", () => {
    const state = initialState();
    blenderRobot(state);
    const { scene } = exportAsset(state, "blender", "Head", { applyModifiers: true, includeAnimations: true });
    const world = worldMatrices(scene)[0].elements;
    const expected = physical(state, "blender", "Head");
    close([world[0], world[4], world[8], world[1], world[5], world[9], world[2], world[6], world[10], world[12], world[13], world[14]], expected, 1e-9, "Head");
  });

  it("bakes modifiers, or exports the base mesh and says so", () => {
    const state = initialState();
    blenderRobot(state);
    run(state, "add_modifier", "blender", { target: "Body", type: "mirror", axis: "z" });
    run(state, "add_modifier", "blender", { target: "Body", type: "array", count: 3 });
    const baked = exportAsset(state, "blender", "Body", { applyModifiers: true, includeAnimations: true });
    expect(baked.scene.meshes[0].indices.length / 3).toBe(12 * 2 * 3);
    expect(baked.warnings).toEqual([]);
    const base = exportAsset(state, "blender", "Body", { applyModifiers: false, includeAnimations: false });
    expect(base.scene.meshes[0].indices.length / 3).toBe(12);
    expect(base.scene.animations).toEqual([]);
    expect(base.warnings).toEqual([
      'modifier mirror (z) of "Body" not applied (apply_modifiers: false); its base mesh was exported',
      'modifier array (3 × relative offset {1, 0, 0}) of "Body" not applied (apply_modifiers: false); its base mesh was exported',
      '3 keyframes of "Body" not exported (include_animations: false)',
    ]);
  });

  it("completes keys that carry only some channels by interpolating each channel", () => {
    const keys = completeKeys([
      { time: 0, position: { x: 0, y: 0, z: 0 } },
      { time: 1, rotation: { x: 0, y: 0, z: 90 } },
      { time: 2, position: { x: 4, y: 0, z: 0 } },
    ]);
    expect(keys.map((k) => [k.position?.x, k.rotation?.z])).toEqual([[0, 90], [2, 90], [4, 90]]);
  });

  it("a Blender object 1 m above the ground is 1 m above it in the interchange scene, facing the same way", () => {
    const state = initialState();
    run(state, "create_gameobject", "blender", { name: "Crate", type: "Cube", position: { x: 0, y: 0, z: 1 }, rotation: { x: 0, y: 0, z: 90 } });
    const node = exportAsset(state, "blender", "Crate", { applyModifiers: true, includeAnimations: true }).scene.nodes[0];
    close(node.translation, [0, 1, 0], 1e-12, "translation");
    // Blender +90° about its up axis turns the front (-Y) to +X; canonically the front (+Z) turns to +X too.
    const r = eulerToM3("blender", { x: 0, y: 0, z: 90 });
    close([r[0] * 0 + r[1] * -1, r[3] * 0 + r[4] * -1, 0], [1, 0, 0], 1e-12, "front in Blender");
    expect(Math.abs(node.rotation[1])).toBeCloseTo(Math.SQRT1_2, 12); // 90° about canonical +Y
  });
});

describe("import details", () => {
  const node = (name: string, parent: number | null, extra: object = {}) => ({ name, parent, translation: [0, 0, 0] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number], ...extra });

  it("groups several roots, turns cameras into Empties and a mesh's light into a child", () => {
    const scene: InterchangeScene = {
      nodes: [
        node("A", null, { mesh: 0 }),
        node("Cam", null, { camera: { fovYDeg: 40, near: 0.1, far: 100 } }),
        node("Glow", null, { mesh: 0, light: { type: "point", color: [1, 1, 1], intensity: 2, range: 3 } }),
      ],
      meshes: [{ name: "m", positions: new Float32Array(9), normals: new Float32Array(9), indices: Uint32Array.from([0, 1, 2]) }],
      materials: [],
      animations: [],
    };
    const { plan, warnings } = planImport("godot", scene, "File");
    expect(plan.objects.map((o) => [o.name, o.kind, o.parent])).toEqual([["File", "empty", null], ["A", "mesh", 0], ["Cam", "empty", 0], ["Glow", "mesh", 0], ["Glow Light", "light", 3]]);
    expect(plan.meshes).toHaveLength(1);
    expect(warnings).toEqual([
      'camera "Cam" imported as an Empty (a Kiln scene has one camera of its own, set with set_camera)',
      'light of mesh node "Glow" imported as its child "Glow Light"',
    ]);
  });

  it("keeps an imported animation's Euler angles continuous through 180°", () => {
    const yaw = (deg: number): [number, number, number, number] => [0, Math.sin((deg * Math.PI) / 360), 0, Math.cos((deg * Math.PI) / 360)];
    const scene: InterchangeScene = {
      nodes: [node("Spinner", null)], meshes: [], materials: [],
      animations: [{ node: 0, times: [0, 1, 2, 3], rotations: [yaw(0), yaw(120), yaw(240), yaw(360)] }],
    };
    const keys = planImport("godot", scene, "x").plan.objects[0].keyframes;
    expect(keys.map((k) => k.rotation!.y)).toEqual([0, 120, 240, 360]);
  });
});
