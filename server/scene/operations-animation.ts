/**
 * Keyframes and modifiers: the object data the asset pipeline exports (include_animations,
 * apply_modifiers). Pure, like every operation: (state, params) → changes + result.
 *
 * Keyframes are in the app's own convention (Euler degrees), sorted by time, at most one per time;
 * a key may carry only some channels. Modifiers are Blender's: a stack applied in order to the
 * object's local mesh when it is exported with apply_modifiers.
 */
import { invalid } from "../errors";
import { describeObject, type SceneParams } from "./operations";
import { meshTriangles } from "./mesh-data";
import { primitiveMesh } from "./primitives";
import { getObject, getScene } from "./state";
import type { Keyframe, MeshRecord, Modifier, ObjectRecord, OperationOutcome, SceneState, Vec3 } from "./types";

type Partial3 = Partial<Vec3>;
const merge = (base: Vec3, v: Partial3 | undefined): Vec3 => ({ x: v?.x ?? base.x, y: v?.y ?? base.y, z: v?.z ?? base.z });

/** Keys closer than this (seconds) are the same key: a second set_keyframe at that time updates it. */
export const KEY_TIME_EPSILON = 1e-6;
/** Keys one object may hold: bounds the size of a record and of every exported animation. */
export const MAX_KEYFRAMES = 10_000;
/** Modifiers one object may hold. */
export const MAX_MODIFIERS = 16;
/** Largest array count: with the modifier limit it bounds how far a mesh can be multiplied. */
export const MAX_ARRAY_COUNT = 1000;
/** Largest mesh a modifier stack may produce, so that baking it at export cannot exhaust memory. */
export const MAX_MODIFIED_TRIANGLES = 5_000_000;

/**
 * Sets a keyframe at `time` (seconds). Channels given are keyed; components left out take the
 * object's current value (as in set_transform). With no channel given, the whole current transform
 * is keyed (Blender's "insert keyframe"). A key at the same time is updated, not duplicated.
 */
export function setKeyframe(
  state: SceneState,
  p: SceneParams & { target: string; time: number; position?: Partial3; rotation?: Partial3; scale?: Partial3 },
): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const obj = getObject(state, scene, p.target);
  const all = p.position === undefined && p.rotation === undefined && p.scale === undefined;
  const key: Keyframe = { time: p.time };
  if (all || p.position) key.position = merge(obj.position, p.position);
  if (all || p.rotation) key.rotation = merge(obj.rotation, p.rotation);
  if (all || p.scale) key.scale = merge(obj.scale, p.scale);
  const at = obj.keyframes.findIndex((k) => Math.abs(k.time - p.time) < KEY_TIME_EPSILON);
  const keyframes = obj.keyframes.slice();
  if (at >= 0) keyframes[at] = { ...keyframes[at], ...key, time: keyframes[at].time };
  else {
    if (keyframes.length >= MAX_KEYFRAMES)
      throw invalid("TOO_MANY_KEYFRAMES", `"${obj.name}" already has ${MAX_KEYFRAMES} keyframes, the most an object may hold.`, { field: "time", limit: MAX_KEYFRAMES });
    keyframes.push(key);
    keyframes.sort((a, b) => a.time - b.time);
  }
  const after: ObjectRecord = { ...obj, keyframes };
  return {
    changes: [{ id: obj.id, before: obj, after }],
    result: { app: p.app, scene: scene.name, target: obj.name, keyframe: at >= 0 ? keyframes[at] : key, keyframes: keyframes.length },
  };
}

/** Triangles of an object's own mesh before modifiers (0 for a missing mesh record). */
export function baseTriangles(state: SceneState, obj: ObjectRecord): number {
  if (obj.primitive) return primitiveMesh(obj.app, obj.primitive).indices.length / 3;
  const mesh = obj.mesh ? (state.get(obj.mesh) as MeshRecord | undefined) : undefined;
  return mesh ? meshTriangles(mesh) : 0;
}

/** Triangles of a mesh after a modifier stack: mirror doubles them, array multiplies by its count. */
export function modifiedTriangles(base: number, modifiers: readonly Modifier[]): number {
  return modifiers.reduce((n, m) => n * (m.type === "mirror" ? 2 : (m.count ?? 2)), base);
}

/**
 * Adds a mirror or array modifier to a Blender mesh object (other apps have no modifier stack).
 * Mirror: `axis` (x, default). Array: `count` copies (default 2) each shifted by `offset`, a
 * fraction of the mesh's bounding-box size per axis (Blender's relative offset, default {x: 1}).
 */
export function addModifier(
  state: SceneState,
  p: SceneParams & { target: string; type: "mirror" | "array"; axis?: "x" | "y" | "z"; count?: number; offset?: Partial3 },
): OperationOutcome {
  if (p.app !== "blender")
    throw invalid("MODIFIERS_UNSUPPORTED", `Modifiers belong to Blender objects; ${p.app} has no modifier stack.`, { field: "app", app: p.app, supported: ["blender"] });
  const scene = getScene(state, p.app, p.scene);
  const obj = getObject(state, scene, p.target);
  if (obj.kind !== "mesh")
    throw invalid("NOT_A_MESH", `"${obj.name}" is ${obj.kind === "light" ? "a light" : "an Empty"}; only mesh objects take modifiers.`, { field: "target" });
  const foreign = p.type === "mirror" ? (["count", "offset"] as const).filter((f) => p[f] !== undefined) : p.axis !== undefined ? ["axis"] : [];
  if (foreign.length)
    throw invalid("INVALID_MODIFIER", `A ${p.type} modifier takes no ${foreign.join(" or ")}.`, { field: foreign[0], fields: foreign });
  if (obj.modifiers.length >= MAX_MODIFIERS)
    throw invalid("TOO_MANY_MODIFIERS", `"${obj.name}" already has ${MAX_MODIFIERS} modifiers, the most an object may hold.`, { field: "target", limit: MAX_MODIFIERS });
  const modifier: Modifier = p.type === "mirror"
    ? { type: "mirror", axis: p.axis ?? "x" }
    : { type: "array", count: p.count ?? 2, offset: p.offset ? { x: p.offset.x ?? 0, y: p.offset.y ?? 0, z: p.offset.z ?? 0 } : { x: 1, y: 0, z: 0 } };
  const modifiers = [...obj.modifiers, modifier];
  const triangles = modifiedTriangles(baseTriangles(state, obj), modifiers);
  if (triangles > MAX_MODIFIED_TRIANGLES)
    throw invalid("MESH_TOO_LARGE", `With this modifier "${obj.name}" would have ${triangles} triangles; the most a modified mesh may have is ${MAX_MODIFIED_TRIANGLES}.`, { field: p.type === "array" ? "count" : "type", triangles, limit: MAX_MODIFIED_TRIANGLES });
  const after: ObjectRecord = { ...obj, modifiers };
  return {
    changes: [{ id: obj.id, before: obj, after }],
    result: { object: describeObject(after), scene: scene.name, app: p.app, modifier, triangles },
  };
}
