/**
 * What the pipeline calls an asset: an object of a scene together with all its descendants.
 * Lookups, geometry (with modifiers applied or not) and the summaries list_transferable_assets
 * shows.
 */
import { notFound } from "../errors";
import { transformPoint } from "../scene/math";
import { modifiedTriangles } from "../scene/operations-animation";
import { primitiveMesh, type MeshData } from "../scene/primitives";
import { getScene, sceneObjects } from "../scene/state";
import type { AppId, MeshRecord, ObjectRecord, SceneRecord, SceneState } from "../scene/types";
import { worldMatrices } from "../scene/world";
import { meshDataOf, meshTriangles } from "../scene/mesh-data";
import { applyModifiers } from "./modifiers";

/** Most names listed in an ASSET_NOT_FOUND error; a scene can hold far more objects. */
const MAX_LISTED_NAMES = 200;

export interface Asset {
  scene: SceneRecord;
  root: ObjectRecord;
  /** The root and its descendants, parents before children (siblings by name). */
  objects: ObjectRecord[];
  /** Every object of the scene (for world matrices of the root's ancestors). */
  sceneObjects: ObjectRecord[];
}

/** Children of each object name, sorted by name. */
function childrenOf(objects: readonly ObjectRecord[]): Map<string, ObjectRecord[]> {
  const out = new Map<string, ObjectRecord[]>();
  for (const o of objects) if (o.parent !== null) (out.get(o.parent) ?? out.set(o.parent, []).get(o.parent)!).push(o);
  return out;
}

/** The subtree of `root`, parent-first. */
export function subtree(root: ObjectRecord, objects: readonly ObjectRecord[]): ObjectRecord[] {
  const children = childrenOf(objects);
  const out: ObjectRecord[] = [];
  const seen = new Set<string>();
  const visit = (o: ObjectRecord) => {
    if (seen.has(o.name)) return; // the operations never make cycles; a corrupt state must not hang us
    seen.add(o.name);
    out.push(o);
    for (const c of children.get(o.name) ?? []) visit(c);
  };
  visit(root);
  return out;
}

/** The named asset of an app's scene (active unless named), or 404 ASSET_NOT_FOUND listing the names that exist. */
export function findAsset(state: SceneState, app: AppId, name: string, sceneName?: string): Asset {
  const scene = getScene(state, app, sceneName);
  const all = sceneObjects(state, scene);
  const root = all.find((o) => o.name === name);
  if (!root) {
    const names = all.map((o) => o.name);
    const suggestion = names.find((n) => n.toLowerCase() === name.toLowerCase());
    throw notFound("ASSET_NOT_FOUND", `${app} scene "${scene.name}" has no object named "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}.`, {
      app, scene: scene.name, asset: name, available: names.slice(0, MAX_LISTED_NAMES),
      ...(names.length > MAX_LISTED_NAMES ? { more: names.length - MAX_LISTED_NAMES } : {}),
      ...(suggestion ? { suggestion } : {}),
    });
  }
  return { scene, root, objects: subtree(root, all), sceneObjects: all };
}

/** An object's mesh in its app's local space (modifiers applied if asked), or null (not a mesh, record missing). */
export function objectGeometry(state: SceneState, obj: ObjectRecord, withModifiers: boolean): MeshData | null {
  if (obj.kind !== "mesh") return null;
  let mesh: MeshData | null = null;
  if (obj.primitive) mesh = primitiveMesh(obj.app, obj.primitive);
  else if (obj.mesh) {
    const record = state.get(obj.mesh) as MeshRecord | undefined;
    mesh = record ? meshDataOf(record) : null;
  }
  return mesh && withModifiers && obj.modifiers.length ? applyModifiers(mesh, obj.modifiers) : mesh;
}

/** Triangles an object's own mesh exports with (modifiers applied), without building the mesh. */
export function objectTriangles(state: SceneState, obj: ObjectRecord): number {
  if (obj.kind !== "mesh") return 0;
  const base = obj.primitive ? primitiveMesh(obj.app, obj.primitive).indices.length / 3
    : obj.mesh && state.has(obj.mesh) ? meshTriangles(state.get(obj.mesh) as MeshRecord) : 0;
  return modifiedTriangles(base, obj.modifiers);
}

export interface Bounds { min: { x: number; y: number; z: number }; max: { x: number; y: number; z: number } }

/** World-space bounding box of an asset's geometry (modifiers applied), in the app's own axes; null without geometry. */
export function assetBounds(state: SceneState, asset: Asset): Bounds | null {
  const worlds = worldMatrices(asset.sceneObjects);
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (const o of asset.objects) {
    const mesh = objectGeometry(state, o, true);
    if (!mesh) continue;
    const w = worlds.get(o.name)!;
    const p = mesh.positions;
    for (let i = 0; i < p.length; i += 3) {
      const q = transformPoint(w, p[i], p[i + 1], p[i + 2]);
      for (let a = 0; a < 3; a++) {
        if (q[a] < min[a]) min[a] = q[a];
        if (q[a] > max[a]) max[a] = q[a];
      }
    }
  }
  if (min[0] === Infinity) return null;
  return { min: { x: min[0], y: min[1], z: min[2] }, max: { x: max[0], y: max[1], z: max[2] } };
}
