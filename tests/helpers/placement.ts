/**
 * Where objects are in the physical world, computed from get_scene output independently of the
 * server's conversion code: each app's Euler order and axes are written out here from the
 * documented conventions (docs/pipeline.md), with three.js doing the matrix algebra.
 */
import { Euler, Matrix4, Quaternion, Vector3 } from "three";

export type App = "blender" | "unity" | "godot";
export interface V { x: number; y: number; z: number }
export interface SceneObject { name: string; kind: string; parent: string | null; position: V; rotation: V; scale: V; keyframes?: { time: number; position?: V; rotation?: V; scale?: V }[] }

/** three.js Euler orders of each app's rotation product: Blender Rz·Ry·Rx, Unity and Godot Ry·Rx·Rz. */
const ORDER: Record<App, "ZYX" | "YXZ"> = { blender: "ZYX", unity: "YXZ", godot: "YXZ" };

/**
 * App → physical (glTF: right-handed, +Y up, +Z the front of a model): Blender is Z up with its
 * front at -Y, Unity is left-handed (X mirrored), Godot is already physical.
 */
export const BASIS: Record<App, Matrix4> = {
  blender: new Matrix4().set(1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1),
  unity: new Matrix4().makeScale(-1, 1, 1),
  godot: new Matrix4(),
};

/** The local axis a light shines along in each app (Unity +Z, the others -Z). */
export const LIGHT_FORWARD: Record<App, Vector3> = { blender: new Vector3(0, 0, -1), unity: new Vector3(0, 0, 1), godot: new Vector3(0, 0, -1) };

const DEG = Math.PI / 180;

/** Local matrix of a transform in an app's own convention. */
export function localMatrix(app: App, t: { position: V; rotation: V; scale: V }): Matrix4 {
  const q = new Quaternion().setFromEuler(new Euler(t.rotation.x * DEG, t.rotation.y * DEG, t.rotation.z * DEG, ORDER[app]));
  return new Matrix4().compose(new Vector3(t.position.x, t.position.y, t.position.z), q, new Vector3(t.scale.x, t.scale.y, t.scale.z));
}

/** World matrix of a named object in its app's space (parents resolved). */
export function worldMatrix(app: App, objects: SceneObject[], name: string): Matrix4 {
  const o = objects.find((x) => x.name === name);
  if (!o) throw new Error(`no object "${name}" in ${app}: ${objects.map((x) => x.name).join(", ")}`);
  const local = localMatrix(app, o);
  return o.parent ? worldMatrix(app, objects, o.parent).multiply(local) : local;
}

/** An app-space matrix seen in physical space: B · M · Bᵀ. */
export function physical(app: App, m: Matrix4): Matrix4 {
  return BASIS[app].clone().multiply(m).multiply(BASIS[app].clone().transpose());
}

/** Physical world matrix of an object. */
export const physicalWorld = (app: App, objects: SceneObject[], name: string) => physical(app, worldMatrix(app, objects, name));

/** Physical direction a light shines along, and its up. */
export function lightAxes(app: App, objects: SceneObject[], name: string): { forward: Vector3; up: Vector3; position: Vector3 } {
  const w = physicalWorld(app, objects, name);
  const basis = BASIS[app];
  return {
    forward: LIGHT_FORWARD[app].clone().applyMatrix4(basis).transformDirection(w),
    up: new Vector3(0, 1, 0).applyMatrix4(basis).transformDirection(w),
    position: new Vector3().setFromMatrixPosition(w),
  };
}

/** A point of an app's space in physical space. */
export const physicalPoint = (app: App, v: V) => new Vector3(v.x, v.y, v.z).applyMatrix4(BASIS[app]);

/** Largest absolute difference between two matrices' elements. */
export const matrixDistance = (a: Matrix4, b: Matrix4) => Math.max(...a.elements.map((e, i) => Math.abs(e - b.elements[i])));

/** Physical axis-aligned box of an app-space box (the bases only permute and flip axes, so boxes stay boxes). */
export function physicalBox(app: App, box: { min: V; max: V }): { min: number[]; max: number[] } {
  const a = physicalPoint(app, box.min).toArray(), b = physicalPoint(app, box.max).toArray();
  return { min: a.map((v, i) => Math.min(v, b[i])), max: a.map((v, i) => Math.max(v, b[i])) };
}
