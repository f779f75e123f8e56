/**
 * Scene records → interchange model: one asset (an object and its descendants) with its meshes,
 * materials, lights and keyframes, converted from the app's own convention into the canonical one
 * (see axes.ts). Pure apart from reading the state it is given.
 *
 * The asset's root is placed by its world transform, so an asset that is a child of something in
 * the source lands where it was seen. Keyframes with only some channels are completed by linear
 * interpolation of that channel between its neighbouring keys (held at the ends), because an
 * interchange animation carries every channel at every key time.
 */
import { Matrix4, Quaternion, Vector3 } from "three";
import type { InterchangeAnimation, InterchangeLight, InterchangeMesh, InterchangeNode, InterchangeScene } from "./formats";
import { composeTransform } from "../scene/math";
import type { AppId, Keyframe, LightProps, MaterialRecord, ObjectRecord, SceneState, Vec3 } from "../scene/types";
import { ids } from "../scene/types";
import { worldMatrices } from "../scene/world";
import { findAsset, objectGeometry, type Asset } from "./assets";
import { IDENTITY3, basis, eulerToM3, lightFix, m3ToQuat, permuteTriples, quatToM3, trsToCanonical, v3, type M3, type Trs, type V3 } from "./axes";
import { describeModifier } from "./modifiers";

export interface ExportOptions { applyModifiers: boolean; includeAnimations: boolean }

export interface ExportResult { scene: InterchangeScene; warnings: string[]; objects: number; triangles: number }

const CHANNELS = ["position", "rotation", "scale"] as const;
type Channel = (typeof CHANNELS)[number];

/** The light as the interchange model carries it (Kiln's spot angle is the full cone, glTF's the half). */
function interchangeLight(l: LightProps): InterchangeLight {
  const light: InterchangeLight = { type: l.type.toLowerCase() as InterchangeLight["type"], color: [l.color.r, l.color.g, l.color.b], intensity: l.intensity };
  if (l.type !== "Directional") light.range = l.range;
  if (l.type === "Spot") light.spotAngleDeg = l.spotAngle / 2;
  return light;
}

/** Each key with every channel that any key has, missing ones interpolated (see the module comment). */
export function completeKeys(keys: readonly Keyframe[]): { time: number; position?: Vec3; rotation?: Vec3; scale?: Vec3 }[] {
  const out = keys.map((k) => ({ ...k }));
  for (const ch of CHANNELS) {
    const at = keys.flatMap((k, i) => (k[ch] ? [i] : []));
    if (at.length === 0) continue;
    let j = 0; // index into `at` of the last key at or before i that has the channel
    for (let i = 0; i < keys.length; i++) {
      while (j + 1 < at.length && at[j + 1] <= i) j++;
      if (keys[i][ch]) continue;
      const prev = at[j] < i ? at[j] : undefined, next = at[j] > i ? at[j] : at[j + 1];
      if (prev === undefined || next === undefined) {
        out[i][ch] = keys[(prev ?? next)!][ch];
        continue;
      }
      const a = keys[prev][ch]!, b = keys[next][ch]!;
      const f = (keys[i].time - keys[prev].time) / (keys[next].time - keys[prev].time);
      out[i][ch] = { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f, z: a.z + (b.z - a.z) * f };
    }
  }
  return out;
}

/** App-space local TRS of a transform. */
const localTrs = (app: AppId, t: { position: Vec3; rotation: Vec3; scale: Vec3 }): Trs => ({ t: v3(t.position), r: eulerToM3(app, t.rotation), s: v3(t.scale) });

/** TRS of parentWorld · local (an app-space world placement of a re-rooted asset). */
function underParent(app: AppId, parentWorld: Float64Array, t: { position: Vec3; rotation: Vec3; scale: Vec3 }): Trs {
  const m = new Matrix4().fromArray(parentWorld).multiply(new Matrix4().fromArray(composeTransform(app, t.position, t.rotation, t.scale)));
  const [p, q, s] = [new Vector3(), new Quaternion(), new Vector3()];
  m.decompose(p, q, s);
  return { t: [p.x, p.y, p.z], r: quatToM3([q.x, q.y, q.z, q.w]), s: [s.x, s.y, s.z] };
}

function canonicalMesh(app: AppId, name: string, mesh: { positions: Float32Array; normals: Float32Array; indices: Uint32Array }): InterchangeMesh {
  const b = basis(app);
  return { name, positions: permuteTriples(b, mesh.positions), normals: permuteTriples(b, mesh.normals), indices: mesh.indices };
}

/** The interchange scene of an asset (see the module comment). */
export function exportAsset(state: SceneState, app: AppId, assetName: string, options: ExportOptions, sceneName?: string): ExportResult {
  const asset = findAsset(state, app, assetName, sceneName);
  return exportFound(state, asset, options);
}

/** exportAsset for an asset already looked up. */
export function exportFound(state: SceneState, asset: Asset, options: ExportOptions): ExportResult {
  const app = asset.root.app;
  const warnings: string[] = [];
  const out: InterchangeScene = { nodes: [], meshes: [], materials: [], animations: [] };
  const index = new Map<string, number>();
  const materialIndex = new Map<string, number>();
  const fixOf = (o: ObjectRecord | undefined): M3 => (o?.kind === "light" ? lightFix(app) : IDENTITY3);
  const parentWorld = asset.root.parent !== null ? worldMatrices(asset.sceneObjects).get(asset.root.parent) : undefined;
  const byName = new Map(asset.objects.map((o) => [o.name, o]));
  let triangles = 0;

  for (const o of asset.objects) {
    const isRoot = o === asset.root;
    const parent = isRoot ? undefined : byName.get(o.parent!);
    const toCanon = (t: { position: Vec3; rotation: Vec3; scale: Vec3 }) =>
      trsToCanonical(app, isRoot && parentWorld ? underParent(app, parentWorld, t) : localTrs(app, t), fixOf(o), fixOf(parent));
    const trs = toCanon(o);
    const node: InterchangeNode = {
      name: o.name, parent: parent ? index.get(parent.name)! : null, translation: trs.t, rotation: m3ToQuat(trs.r), scale: trs.s,
    };
    index.set(o.name, out.nodes.push(node) - 1);

    if (o.kind === "mesh") {
      if (!options.applyModifiers) for (const m of o.modifiers) warnings.push(`modifier ${describeModifier(m)} of "${o.name}" not applied (apply_modifiers: false); its base mesh was exported`);
      const mesh = objectGeometry(state, o, options.applyModifiers);
      if (!mesh) warnings.push(`mesh of "${o.name}" is missing from the scene; exported as an empty node`);
      else {
        node.mesh = out.meshes.push(canonicalMesh(app, o.name, mesh)) - 1;
        triangles += mesh.indices.length / 3;
        const material = o.material ? (state.get(ids.material(app, o.material)) as MaterialRecord | undefined) : undefined;
        if (o.material && !material) warnings.push(`material "${o.material}" of "${o.name}" no longer exists; exported without a material`);
        if (material) {
          if (!materialIndex.has(material.name)) {
            const c = material.color;
            materialIndex.set(material.name, out.materials.push({ name: material.name, color: [c.r, c.g, c.b, c.a], metallic: material.metallic, roughness: material.roughness }) - 1);
          }
          node.material = materialIndex.get(material.name);
        }
      }
    }
    if (o.kind === "light" && o.light) node.light = interchangeLight(o.light);

    if (o.keyframes.length && !options.includeAnimations) warnings.push(`${o.keyframes.length} keyframes of "${o.name}" not exported (include_animations: false)`);
    if (o.keyframes.length && options.includeAnimations) out.animations.push(animation(out.nodes.length - 1, o, toCanon));
  }
  return { scene: out, warnings, objects: out.nodes.length, triangles };
}

/** The interchange animation of an object's keyframes; quaternion signs kept continuous for interpolation. */
function animation(node: number, o: ObjectRecord, toCanon: (t: { position: Vec3; rotation: Vec3; scale: Vec3 }) => Trs): InterchangeAnimation {
  const keys = completeKeys(o.keyframes);
  const a: InterchangeAnimation = { node, times: keys.map((k) => k.time) };
  const has = (ch: Channel) => keys[0][ch] !== undefined;
  const converted = keys.map((k) => toCanon({ position: k.position ?? o.position, rotation: k.rotation ?? o.rotation, scale: k.scale ?? o.scale }));
  if (has("position")) a.translations = converted.map((c) => c.t);
  if (has("scale")) a.scales = converted.map((c) => c.s as V3);
  if (has("rotation")) {
    let prev: number[] | undefined;
    a.rotations = converted.map((c) => {
      const q = m3ToQuat(c.r);
      if (prev && q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0) for (let i = 0; i < 4; i++) q[i] = -q[i];
      prev = q;
      return q;
    });
  }
  return a;
}
