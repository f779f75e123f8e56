/**
 * Interchange model → import plan: the objects, meshes and materials of a decoded file, converted
 * into the target app's own convention (axes, Euler order, light direction; see axes.ts), ready
 * for the scene core's atomic import (server/scene/operations-import.ts), which resolves names.
 *
 * Rules (docs/pipeline.md): a file with several roots is grouped under one new Empty named after
 * the asset or file, so an import is always one object tree; cameras become Empties (a Kiln scene
 * has one camera of its own); a node with both a mesh and a light gets the light as a child
 * object. Imported transforms are tidied: positions and angles to 1e-6, scales to 7 significant
 * digits, which drops float32 noise ("0.30000001192") and stays far inside any tolerance.
 */
import type { InterchangeAnimation, InterchangeLight, InterchangeMaterial, InterchangeScene } from "./formats";
import type { ImportMaterial, ImportObject, ImportPlan } from "../scene/operations-import";
import { TEXTURE_SLOTS, type AppId, type ImageRecord, type Keyframe, type LightProps, type MeshRecord, type TextureRef, type Vec3 } from "../scene/types";
import { IDENTITY3, basis, conjugateMat4, lightFix, m3ToEuler, permuteTriples, quatToM3, transpose3, trsFromCanonical, vec, type M3, type Trs } from "./axes";
import { LimitError } from "./formats";
import { imageRecord, meshRecord, type FullMesh } from "./mesh-records";
import { weld } from "./weld";

export interface PlanResult { plan: ImportPlan; warnings: string[] }

const round6 = (v: number) => Math.round(v * 1e6) / 1e6 + 0; // + 0 turns -0 into 0
const sig7 = (v: number) => Number(v.toPrecision(7)) + 0;
const tidy = (v: Vec3, f: (n: number) => number): Vec3 => ({ x: f(v.x), y: f(v.y), z: f(v.z) });
const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
/** Longest imported name: leaves room for a ".NNN" clash suffix within Kiln's 200 characters. */
const MAX_NAME = 190;
const KILN_DEFAULT_RANGE = 10;

const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** A name Kiln accepts (1-190 characters, no control characters), or `fallback`. */
export function cleanName(name: string, fallback: string): string {
  // Lone surrogates (a broken UTF-16 name in a file) become U+FFFD: they cannot be encoded as UTF-8 later.
  return wellFormed(wellFormed(name).replace(/[\u0000-\u001f\u007f]+/g, " ").trim().slice(0, MAX_NAME).trim()) || fallback;
}

function kilnLight(l: InterchangeLight, name: string, warn: (w: string) => void): LightProps {
  const type = l.type === "directional" ? "Directional" : l.type === "spot" ? "Spot" : "Point";
  const color = { r: clamp01(l.color[0]), g: clamp01(l.color[1]), b: clamp01(l.color[2]), a: 1 };
  if (l.color.some((c) => c < 0 || c > 1)) warn(`light "${name}": colour outside 0..1 clamped`);
  let range = l.range ?? KILN_DEFAULT_RANGE;
  if (l.range === undefined && type !== "Directional") warn(`light "${name}": unlimited range in the file; Kiln's default range ${KILN_DEFAULT_RANGE} m used`);
  if (!(range > 0) || range > 1e6) (range = Math.min(Math.max(range, 1e-3), 1e6), warn(`light "${name}": range clamped to ${range} m`));
  const spotAngle = Math.min(Math.max((l.spotAngleDeg ?? 45) * 2, 1e-3), 179.999);
  return { type, intensity: Math.min(Math.max(l.intensity, 0), 1e6), color, range, spotAngle };
}

function kilnMaterial(m: InterchangeMaterial, imageId: (k: number) => string, warn: (w: string) => void): ImportMaterial {
  const name = cleanName(m.name, "Material");
  if (m.color.some((c) => c < 0 || c > 1)) warn(`material "${name}": colour outside 0..1 clamped`);
  const out: ImportMaterial = {
    name, color: { r: clamp01(m.color[0]), g: clamp01(m.color[1]), b: clamp01(m.color[2]), a: clamp01(m.color[3]) },
    metallic: clamp01(m.metallic), roughness: clamp01(m.roughness),
  };
  for (const slot of TEXTURE_SLOTS) {
    const t = m.textures?.[slot];
    if (!t) continue;
    const ref: TextureRef = { image: imageId(t.image), uv: t.uv };
    if (t.offset) ref.offset = [t.offset[0], t.offset[1]];
    if (t.scale) ref.scale = [t.scale[0], t.scale[1]];
    if (t.rotation !== undefined) ref.rotation = t.rotation;
    (out.textures ??= {})[slot] = ref;
  }
  if (m.emissive) out.emissive = { r: Math.max(0, m.emissive[0]), g: Math.max(0, m.emissive[1]), b: Math.max(0, m.emissive[2]) };
  if (m.alphaMode) out.alphaMode = m.alphaMode;
  if (m.alphaCutoff !== undefined) out.alphaCutoff = clamp01(m.alphaCutoff);
  if (m.doubleSided) out.doubleSided = true;
  if (m.extras) out.properties = m.extras;
  return out;
}

/** Nodes in parent-first order (depth first from each root); a cycle is cut at its first repeat. */
function parentFirst(scene: InterchangeScene): number[] {
  const children = scene.nodes.map(() => [] as number[]);
  const roots: number[] = [];
  scene.nodes.forEach((n, i) => (n.parent === null || !scene.nodes[n.parent] ? roots : children[n.parent]).push(i));
  const order: number[] = [];
  const seen = new Set<number>();
  // An explicit stack, not recursion: a file's hierarchy may be deeper than the call stack.
  const stack = [...roots].reverse();
  while (stack.length) {
    const i = stack.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    order.push(i);
    for (let k = children[i].length - 1; k >= 0; k--) stack.push(children[i][k]);
  }
  return order;
}

interface RawKey { time: number; t?: number[]; r?: number[]; s?: number[]; w?: number[] }

/** Keys of one node from every animation that drives it, merged on their (tidied) times, in time order. */
function rawKeys(animations: InterchangeAnimation[]): RawKey[] {
  const byTime = new Map<number, RawKey>();
  for (const a of animations)
    a.times.forEach((time, k) => {
      const t = round6(time);
      const key = byTime.get(t) ?? byTime.set(t, { time: t }).get(t)!;
      if (a.translations) key.t = a.translations[k];
      if (a.rotations) key.r = a.rotations[k];
      if (a.scales) key.s = a.scales[k];
      if (a.weights) key.w = a.weights[k];
    });
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/** The import plan of a decoded scene for `app`; `groupName` names the Empty that groups several roots. */
export function planImport(app: AppId, scene: InterchangeScene, groupName: string): PlanResult {
  const warnings: string[] = [];
  const warn = (w: string) => void (warnings.includes(w) || warnings.push(w));
  const objects: ImportObject[] = [];
  const meshes = new Map<string, MeshRecord>();
  const meshIds = new Map<number, string>();
  const materials: ImportMaterial[] = [];
  const materialIndex = new Map<number, number>();
  const toApp = transpose3(basis(app));
  const order = parentFirst(scene);
  const animationsOf = new Map<number, InterchangeAnimation[]>();
  for (const a of scene.animations) animationsOf.set(a.node, [...(animationsOf.get(a.node) ?? []), a]);
  if (order.length < scene.nodes.length) warn(`${scene.nodes.length - order.length} nodes in a parent cycle dropped`);
  const roots = order.filter((i) => scene.nodes[i].parent === null || !scene.nodes[scene.nodes[i].parent!]);
  const emptyObject = (name: string, parent: number | null): ImportObject => ({
    name, parent, kind: "empty", position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 },
    mesh: null, material: null, light: null, keyframes: [],
  });
  if (roots.length > 1) objects.push(emptyObject(cleanName(groupName, "Imported"), null));
  const group = roots.length > 1 ? 0 : null;
  const planIndex = new Map<number, number>();
  const fixOf = (kind: ImportObject["kind"] | undefined): M3 => (kind === "light" ? lightFix(app) : IDENTITY3);

  const images = new Map<number, ImageRecord>();
  const imageId = (k: number) => images.get(k)?.id ?? images.set(k, imageRecord(scene.images![k])).get(k)!.id;
  const meshId = (k: number): string => {
    let id = meshIds.get(k);
    if (id === undefined) {
      const m = scene.meshes[k];
      const converted: FullMesh = { positions: permuteTriples(toApp, m.positions), normals: permuteTriples(toApp, m.normals), indices: m.indices };
      // UVs are kept in glTF's orientation in every app (docs/pipeline.md); colours are linear.
      if (m.uvs?.length) converted.uvs = m.uvs.slice(0, 2);
      if (m.colors) converted.colors = m.colors;
      if (m.joints && m.weights) Object.assign(converted, { joints: m.joints, weights: m.weights });
      if (m.groups) converted.groups = m.groups;
      if (m.morphTargets?.length) {
        converted.morphTargets = m.morphTargets.map((t) => ({
          name: cleanName(t.name, "Key"), positions: permuteTriples(toApp, t.positions), ...(t.normals ? { normals: permuteTriples(toApp, t.normals) } : {}),
        }));
        converted.morphWeights = m.morphWeights ?? m.morphTargets.map(() => 0);
      }
      // One vertex per triangle corner (FBXLoader's output): store it indexed again.
      const record = meshRecord(m.indices.length === m.positions.length / 3 ? weld(converted) : converted);
      meshes.set(record.id, record);
      meshIds.set(k, (id = record.id));
    }
    return id;
  };
  const materialOf = (k: number): number => materialIndex.get(k) ?? materialIndex.set(k, materials.push(kilnMaterial(scene.materials[k], imageId, warn)) - 1).get(k)!;
  const skinned: { object: number; skin: number }[] = [];

  for (const i of order) {
    const node = scene.nodes[i];
    const kind: ImportObject["kind"] = node.mesh !== undefined ? "mesh" : node.light ? "light" : "empty";
    const name = cleanName(node.name, kind === "mesh" ? "Mesh" : kind === "light" ? "Light" : "Empty");
    if (name !== node.name) warn(`node name ${JSON.stringify(node.name)} imported as "${name}"`);
    if (node.camera) warn(`camera "${name}" imported as ${kind === "empty" ? "an Empty" : `part of a ${kind} object`} (a Kiln scene has one camera of its own, set with set_camera)`);
    const parent = node.parent === null || !planIndex.has(node.parent) ? group : planIndex.get(node.parent)!;
    const own = fixOf(kind), parentFix = fixOf(parent === null ? undefined : objects[parent].kind);
    const convert = (t: ArrayLike<number>, r: ArrayLike<number>, s: ArrayLike<number>): Trs =>
      trsFromCanonical(app, { t: [t[0], t[1], t[2]], r: quatToM3(r), s: [s[0], s[1], s[2]] }, own, parentFix);
    const trs = convert(node.translation, node.rotation, node.scale);
    const object: ImportObject = {
      ...emptyObject(name, parent), kind,
      position: tidy(vec(trs.t), round6), rotation: tidy(m3ToEuler(app, trs.r), round6), scale: tidy(vec(trs.s), sig7),
    };
    if (node.extras) object.properties = node.extras;
    if (node.mesh !== undefined) {
      object.mesh = meshId(node.mesh);
      if (scene.meshes[node.mesh].groups && node.materials) {
        object.materials = node.materials.map((m) => (m === null ? null : materialOf(m)));
        object.material = object.materials[0] ?? null;
      } else if (node.material !== undefined) object.material = materialOf(node.material);
      if (node.morphWeights) object.morphWeights = node.morphWeights;
      if (node.skin !== undefined && scene.skins?.[node.skin]) skinned.push({ object: objects.length, skin: node.skin });
      if (scene.meshes[node.mesh].extras) object.properties = { ...scene.meshes[node.mesh].extras, ...object.properties };
    } else if (node.light) object.light = kilnLight(node.light, name, warn);
    const animations = animationsOf.get(i) ?? [];
    // Euler angles are chosen continuous from the rest rotation on, key after key (see m3ToEuler).
    let near = object.rotation;
    object.keyframes = rawKeys(animations).map(({ time, t, r, s, w }) => {
      const c = convert(t ?? node.translation, r ?? node.rotation, s ?? node.scale);
      const key: Keyframe = { time };
      if (w) key.weights = [...w];
      if (t) key.position = tidy(vec(c.t), round6);
      if (r) near = key.rotation = tidy(m3ToEuler(app, c.r, near), round6);
      if (s) key.scale = tidy(vec(c.s), sig7);
      return key;
    });
    planIndex.set(i, objects.push(object) - 1);
    if (node.mesh !== undefined && node.light) {
      const lightName = cleanName(`${name} Light`, "Light");
      warn(`light of mesh node "${name}" imported as its child "${lightName}"`);
      const local = trsFromCanonical(app, { t: [0, 0, 0], r: IDENTITY3, s: [1, 1, 1] }, fixOf("light"), IDENTITY3);
      objects.push({ ...emptyObject(lightName, objects.length - 1), kind: "light", rotation: tidy(m3ToEuler(app, local.r), round6), light: kilnLight(node.light, lightName, warn) });
    }
  }
  // Skins: joints become plan indices (a joint dropped from the import drops the skin, with a warning).
  for (const { object, skin } of skinned) {
    const s = scene.skins![skin];
    const joints = s.joints.map((j) => planIndex.get(j));
    if (joints.some((j) => j === undefined)) {
      warn(`skin "${s.name}" of "${objects[object].name}" dropped: a joint is not part of the import`);
      continue;
    }
    const g = toApp;
    const inverseBindMatrices: number[] = [];
    for (let j = 0; j < s.joints.length; j++) inverseBindMatrices.push(...conjugateMat4(g, s.inverseBindMatrices.subarray(j * 16, j * 16 + 16)));
    objects[object].skin = { joints: joints as number[], inverseBindMatrices };
  }
  const plan: ImportPlan = { objects, meshes: [...meshes.values()], materials };
  if (images.size) plan.images = [...new Map([...images.values()].map((im) => [im.id, im])).values()];
  checkPlanNumbers(plan);
  return { plan, warnings };
}

/**
 * Every number of the planned objects and materials is finite: the conversion into the app's
 * convention multiplies matrices, and what overflows there (a scale near the float64 limit) could
 * be stored but never exported again. Iterative; mesh records hold no plain numbers.
 */
function checkPlanNumbers(plan: Pick<ImportPlan, "objects" | "materials">): void {
  const stack: unknown[] = [plan.objects, plan.materials];
  while (stack.length) {
    const v = stack.pop();
    if (v instanceof Uint8Array) continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw new LimitError("a transform, key, light or material overflows to a non-finite number in the target's convention");
    } else if (v && typeof v === "object") for (const x of Object.values(v)) stack.push(x);
  }
}
