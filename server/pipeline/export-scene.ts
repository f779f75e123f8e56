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
import type { InterchangeAnimation, InterchangeLight, InterchangeMaterial, InterchangeMesh, InterchangeNode, InterchangeScene, InterchangeTexture } from "./formats";
import { meshVertexDataOf, type MeshVertexData } from "../scene/mesh-data";
import { composeTransform } from "../scene/math";
import type { AppId, Keyframe, LightProps, MaterialRecord, MeshRecord, ObjectRecord, SceneEntity, SceneState, Vec3 } from "../scene/types";
import { TEXTURE_SLOTS, ids } from "../scene/types";
import { worldMatrices } from "../scene/world";
import { findAsset, objectGeometry, type Asset } from "./assets";
import { IDENTITY3, basis, conjugateMat4, eulerToM3, lightFix, m3ToQuat, permuteTriples, quatToM3, trsToCanonical, v3, type M3, type Trs, type V3 } from "./axes";
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
export function completeKeys(keys: readonly Keyframe[]): Keyframe[] {
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

function canonicalMesh(app: AppId, name: string, mesh: { positions: Float32Array; normals: Float32Array; indices: Uint32Array }, extra: MeshVertexData): InterchangeMesh {
  const b = basis(app);
  const out: InterchangeMesh = { name, positions: permuteTriples(b, mesh.positions), normals: permuteTriples(b, mesh.normals), indices: mesh.indices };
  if (extra.uvs) out.uvs = extra.uvs;
  if (extra.colors) out.colors = extra.colors;
  if (extra.joints && extra.weights) Object.assign(out, { joints: extra.joints, weights: extra.weights });
  if (extra.groups) out.groups = extra.groups;
  if (extra.morphTargets?.length) {
    out.morphTargets = extra.morphTargets.map((t) => ({ name: t.name, positions: permuteTriples(b, t.positions), ...(t.normals ? { normals: permuteTriples(b, t.normals) } : {}) }));
    out.morphWeights = extra.morphWeights ?? extra.morphTargets.map(() => 0);
  }
  return out;
}

/** The interchange scene of an asset (see the module comment). */
export function exportAsset(state: SceneState, app: AppId, assetName: string, options: ExportOptions, sceneName?: string): ExportResult {
  const asset = findAsset(state, app, assetName, sceneName);
  return exportFound(state, asset, options);
}

/**
 * What exportFound reads, and nothing more: the asset with only its root's ancestors as the rest of
 * the scene, its meshes, the materials it names and their images. A transfer sends these to a
 * worker thread, which exports and encodes there: decoding a big mesh's arrays on the event loop
 * would keep other clients waiting, and a whole big scene would be slow to copy.
 */
export function exportInputs(state: SceneState, asset: Asset): { records: SceneState; asset: Asset } {
  const byName = new Map(asset.sceneObjects.map((o) => [o.name, o]));
  const ancestors: ObjectRecord[] = [];
  for (let p = asset.root.parent; p !== null && ancestors.length < byName.size; ) {
    const o = byName.get(p);
    if (!o) break;
    ancestors.push(o);
    p = o.parent;
  }
  const out = new Map<string, SceneEntity>();
  const take = (id: string | null | undefined) => {
    const r = id ? state.get(id) : undefined;
    if (r && id) out.set(id, r);
    return r;
  };
  for (const o of asset.objects) {
    take(o.mesh);
    for (const name of [o.material, ...(o.materials ?? [])]) {
      const m = name ? (take(ids.material(o.app, name)) as MaterialRecord | undefined) : undefined;
      for (const t of Object.values(m?.textures ?? {})) take(t?.image);
    }
  }
  return { records: out, asset: { ...asset, sceneObjects: [...ancestors, ...asset.objects] } };
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
  const imageIndex = new Map<string, number>();
  const skinned: { node: number; object: ObjectRecord }[] = [];
  out.images = [];

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
    if (o.properties) node.extras = o.properties;

    if (o.kind === "mesh") {
      if (!options.applyModifiers) for (const m of o.modifiers) warnings.push(`modifier ${describeModifier(m)} of "${o.name}" not applied (apply_modifiers: false); its base mesh was exported`);
      const mesh = objectGeometry(state, o, options.applyModifiers);
      if (!mesh) warnings.push(`mesh of "${o.name}" is missing from the scene; exported as an empty node`);
      else {
        const record = o.mesh ? (state.get(o.mesh) as MeshRecord | undefined) : undefined;
        // A modifier stack makes new vertices the stored vertex data does not describe.
        const modified = options.applyModifiers && o.modifiers.length > 0;
        const extra = record && !modified ? meshVertexDataOf(record) : {};
        if (record && modified && (record.uv0 || record.colors || record.joints || record.groups || record.morphTargets))
          warnings.push(`"${o.name}": UVs, colours, skin, material slots and morph targets not exported with modifiers applied`);
        node.mesh = out.meshes.push(canonicalMesh(app, o.name, mesh, extra)) - 1;
        triangles += mesh.indices.length / 3;
        const slotNames = extra.groups ? extra.groups.map((_, k) => o.materials?.[k] ?? (k === 0 ? o.material : null)) : [o.material];
        const slots = slotNames.map((name) => {
          const material = name ? (state.get(ids.material(app, name)) as MaterialRecord | undefined) : undefined;
          if (name && !material) warnings.push(`material "${name}" of "${o.name}" no longer exists; exported without a material`);
          if (!material) return null;
          if (!materialIndex.has(material.name)) materialIndex.set(material.name, out.materials.push(interchangeMaterial(state, material, imageIndex, out, warnings)) - 1);
          return materialIndex.get(material.name)!;
        });
        if (extra.groups) node.materials = slots;
        else if (slots[0] !== null) node.material = slots[0];
        if (o.morphWeights && o.morphWeights.length === (extra.morphTargets?.length ?? -1)) node.morphWeights = o.morphWeights;
        if (o.skin && extra.joints) skinned.push({ node: out.nodes.length - 1, object: o });
      }
    }
    if (o.kind === "light" && o.light) node.light = interchangeLight(o.light);

    if (o.keyframes.length && !options.includeAnimations) warnings.push(`${o.keyframes.length} keyframes of "${o.name}" not exported (include_animations: false)`);
    if (o.keyframes.length && options.includeAnimations) out.animations.push(animation(out.nodes.length - 1, o, toCanon));
  }
  // Skins, once every node is known: joints outside the asset cannot be written.
  for (const { node, object } of skinned) {
    const joints = object.skin!.joints.map((j) => index.get(j));
    if (joints.some((j) => j === undefined)) {
      warnings.push(`skin of "${object.name}" not exported: its joints are not all part of the asset`);
      continue;
    }
    const ibm = new Float32Array(object.skin!.inverseBindMatrices.length);
    for (let j = 0; j < joints.length; j++) ibm.set(conjugateMat4(basis(app), object.skin!.inverseBindMatrices.slice(j * 16, j * 16 + 16)), j * 16);
    out.nodes[node].skin = (out.skins ??= []).push({ name: `${object.name} Skin`, joints: joints as number[], inverseBindMatrices: ibm }) - 1;
  }
  // Weight keys need a mesh with as many morph targets; anything else is left out.
  for (const a of out.animations) {
    const targets = out.nodes[a.node].mesh === undefined ? 0 : out.meshes[out.nodes[a.node].mesh!].morphTargets?.length ?? 0;
    if (a.weights && a.weights.some((w) => w.length !== targets)) delete a.weights;
  }
  if (imageIndex.size === 0) delete out.images;
  return { scene: out, warnings, objects: out.nodes.length, triangles };
}

/** The interchange animation of an object's keyframes; quaternion signs kept continuous for interpolation. */
function animation(node: number, o: ObjectRecord, toCanon: (t: { position: Vec3; rotation: Vec3; scale: Vec3 }) => Trs): InterchangeAnimation {
  const keys = completeKeys(o.keyframes);
  const a: InterchangeAnimation = { node, times: keys.map((k) => k.time) };
  // Weight keys are only written when every key has them (Kiln's own tools never set them).
  if (keys.every((k) => k.weights)) a.weights = keys.map((k) => [...k.weights!]);
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

/** The interchange material of a record, its images added to the scene once each. */
function interchangeMaterial(state: SceneState, m: MaterialRecord, imageIndex: Map<string, number>, out: InterchangeScene, warnings: string[]): InterchangeMaterial {
  const c = m.color;
  const mat: InterchangeMaterial = { name: m.name, color: [c.r, c.g, c.b, c.a], metallic: m.metallic, roughness: m.roughness };
  for (const slot of TEXTURE_SLOTS) {
    const t = m.textures?.[slot];
    if (!t) continue;
    const image = state.get(t.image);
    if (image?.type !== "image") {
      warnings.push(`texture ${slot} of material "${m.name}" is missing from the scene; exported without it`);
      continue;
    }
    let k = imageIndex.get(image.id);
    if (k === undefined) imageIndex.set(image.id, (k = out.images!.push({ name: image.name, mimeType: image.mimeType, bytes: new Uint8Array(Buffer.from(image.data, "base64")) }) - 1));
    const tex: InterchangeTexture = { image: k, uv: t.uv };
    if (t.offset) tex.offset = [...t.offset];
    if (t.scale) tex.scale = [...t.scale];
    if (t.rotation !== undefined) tex.rotation = t.rotation;
    (mat.textures ??= {})[slot] = tex;
  }
  if (m.emissive) mat.emissive = [m.emissive.r, m.emissive.g, m.emissive.b];
  if (m.alphaMode) mat.alphaMode = m.alphaMode;
  if (m.alphaCutoff !== undefined) mat.alphaCutoff = m.alphaCutoff;
  if (m.doubleSided) mat.doubleSided = true;
  if (m.properties) mat.extras = m.properties;
  return mat;
}
