/**
 * The editor operations as pure functions of (state, params) → changes + result.
 * They never mutate the state; the caller applies the changes. Params arrive validated
 * (server/tools owns the schemas), with defaults already filled in.
 */
import { invalid, conflict } from "../errors";
import {
  assertNoObject, getApp, getMaterial, getObject, getScene, newScene, sceneObjects,
} from "./state";
import {
  ids,
  type AppId, type Change, type Color, type LightType, type MaterialRecord, type MeshRecord, type ObjectRecord,
  type OperationOutcome, type PrimitiveType, type SceneState, type Vec3,
} from "./types";

type Partial3 = Partial<Vec3>;
const vec = (v: Partial3 | undefined, d: number): Vec3 => ({ x: v?.x ?? d, y: v?.y ?? d, z: v?.z ?? d });
const merge = (base: Vec3, v: Partial3 | undefined): Vec3 => ({ x: v?.x ?? base.x, y: v?.y ?? base.y, z: v?.z ?? base.z });

export interface SceneParams { app: AppId; scene?: string }

/** Creates a scene and makes it the app's active scene. */
export function createScene(state: SceneState, p: SceneParams & { name: string }): OperationOutcome {
  if (state.has(ids.scene(p.app, p.name)))
    throw conflict("SCENE_EXISTS", `${p.app} already has a scene named "${p.name}".`, { app: p.app, name: p.name });
  const app = getApp(state, p.app);
  const scene = newScene(p.app, p.name);
  return {
    changes: [
      { id: scene.id, before: null, after: scene },
      { id: app.id, before: app, after: { ...app, activeScene: p.name } },
    ],
    result: { app: p.app, scene: p.name, active: true },
  };
}

/** Makes an existing scene the app's active scene. */
export function openScene(state: SceneState, p: SceneParams & { name: string }): OperationOutcome {
  const scene = getScene(state, p.app, p.name);
  const app = getApp(state, p.app);
  const changes: Change[] = app.activeScene === scene.name ? [] : [{ id: app.id, before: app, after: { ...app, activeScene: scene.name } }];
  return { changes, result: { app: p.app, scene: scene.name, active: true } };
}

function baseObject(p: SceneParams & { name: string; position?: Partial3; rotation?: Partial3; scale?: Partial3; parent?: string }, state: SceneState) {
  const scene = getScene(state, p.app, p.scene);
  assertNoObject(state, scene, p.name);
  if (p.parent !== undefined) getObject(state, scene, p.parent);
  return {
    scene,
    record: {
      type: "object" as const, id: ids.object(p.app, scene.name, p.name), app: p.app, scene: scene.name, name: p.name,
      position: vec(p.position, 0), rotation: vec(p.rotation, 0), scale: vec(p.scale, 1),
      parent: p.parent ?? null, material: null, light: null, mesh: null, primitive: null,
      keyframes: [], modifiers: [],
    },
  };
}

/** Creates a primitive mesh object or an Empty. */
export function createGameObject(
  state: SceneState,
  p: SceneParams & { name: string; type: PrimitiveType | "Empty"; position?: Partial3; rotation?: Partial3; scale?: Partial3; parent?: string },
): OperationOutcome {
  const { scene, record } = baseObject(p, state);
  const obj: ObjectRecord = p.type === "Empty"
    ? { ...record, kind: "empty" }
    : { ...record, kind: "mesh", primitive: p.type };
  return { changes: [{ id: obj.id, before: null, after: obj }], result: { object: describeObject(obj), scene: scene.name, app: p.app } };
}

/** Creates a light object. */
export function createLight(
  state: SceneState,
  p: SceneParams & {
    name: string; type: LightType; intensity: number; color: Color; range: number; spot_angle: number;
    position?: Partial3; rotation?: Partial3; parent?: string;
  },
): OperationOutcome {
  const { scene, record } = baseObject(p, state);
  const obj: ObjectRecord = {
    ...record, kind: "light",
    light: { type: p.type, intensity: p.intensity, color: p.color, range: p.range, spotAngle: p.spot_angle },
  };
  return { changes: [{ id: obj.id, before: null, after: obj }], result: { object: describeObject(obj), scene: scene.name, app: p.app } };
}

/** Sets the scene camera; omitted fields keep their value. */
export function setCamera(state: SceneState, p: SceneParams & { position?: Partial3; rotation?: Partial3; fov?: number }): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const camera = {
    position: merge(scene.camera.position, p.position),
    rotation: merge(scene.camera.rotation, p.rotation),
    fov: p.fov ?? scene.camera.fov,
  };
  return {
    changes: [{ id: scene.id, before: scene, after: { ...scene, camera } }],
    result: { app: p.app, scene: scene.name, camera },
  };
}

/** Creates a material of the app. */
export function createMaterial(
  state: SceneState,
  p: { app: AppId; name: string; color: Color; metallic: number; roughness: number },
): OperationOutcome {
  const id = ids.material(p.app, p.name);
  if (state.has(id)) throw conflict("MATERIAL_EXISTS", `${p.app} already has a material named "${p.name}".`, { app: p.app, name: p.name });
  const material: MaterialRecord = { type: "material", id, app: p.app, name: p.name, color: p.color, metallic: p.metallic, roughness: p.roughness };
  return { changes: [{ id, before: null, after: material }], result: { material: describeMaterial(material), app: p.app } };
}

/** Assigns a material to a mesh object. */
export function setMaterial(state: SceneState, p: SceneParams & { target: string; material: string }): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const obj = getObject(state, scene, p.target);
  const material = getMaterial(state, p.app, p.material);
  if (obj.kind !== "mesh")
    throw invalid("NOT_A_MESH", `"${obj.name}" is ${obj.kind === "light" ? "a light" : "an Empty"}; only mesh objects take materials.`, { field: "target" });
  return {
    changes: [{ id: obj.id, before: obj, after: { ...obj, material: material.name } }],
    result: { app: p.app, scene: scene.name, target: obj.name, material: material.name },
  };
}

/** Moves, rotates or scales an object; omitted components keep their value. */
export function setTransform(
  state: SceneState,
  p: SceneParams & { target: string; position?: Partial3; rotation?: Partial3; scale?: Partial3 },
): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const obj = getObject(state, scene, p.target);
  const after = { ...obj, position: merge(obj.position, p.position), rotation: merge(obj.rotation, p.rotation), scale: merge(obj.scale, p.scale) };
  return { changes: [{ id: obj.id, before: obj, after }], result: { object: describeObject(after), scene: scene.name, app: p.app } };
}

/** Deletes an object and, recursively, its children. */
export function deleteObject(state: SceneState, p: SceneParams & { target: string }): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const root = getObject(state, scene, p.target);
  const all = sceneObjects(state, scene);
  const doomed: ObjectRecord[] = [];
  const visit = (o: ObjectRecord) => {
    doomed.push(o);
    for (const c of all) if (c.parent === o.name) visit(c);
  };
  visit(root);
  // Children first, so replaying the changes never leaves an orphan behind.
  const changes = doomed.reverse().map((o): Change => ({ id: o.id, before: o, after: null }));
  // Imported geometry goes with its last user, after it (undo restores it first).
  for (const mesh of unusedMeshes(state, doomed)) changes.push({ id: mesh.id, before: mesh, after: null });
  return { changes, result: { app: p.app, scene: scene.name, deleted: doomed.map((o) => o.name).reverse() } };
}

/**
 * Mesh records used by `doomed` and by no other object of any app or scene. Meshes are shared by
 * content, so this must look at every object; it only runs when a deleted object has one.
 */
function unusedMeshes(state: SceneState, doomed: ObjectRecord[]): MeshRecord[] {
  const candidates = new Set(doomed.flatMap((o) => (o.mesh ? [o.mesh] : [])));
  if (candidates.size === 0) return [];
  const leaving = new Set(doomed.map((o) => o.id));
  for (const r of state.values()) if (r.type === "object" && r.mesh && !leaving.has(r.id)) candidates.delete(r.mesh);
  return [...candidates].flatMap((id) => {
    const mesh = state.get(id);
    return mesh?.type === "mesh" ? [mesh] : [];
  });
}

/** The public shape of an object in results. */
export function describeObject(o: ObjectRecord) {
  const type = o.kind === "light" ? o.light!.type : o.kind === "empty" ? "Empty" : (o.primitive ?? "Mesh");
  return {
    name: o.name, kind: o.kind, type, parent: o.parent, position: o.position, rotation: o.rotation, scale: o.scale,
    material: o.material, ...(o.light ? { light: o.light } : {}),
    ...(o.keyframes.length ? { keyframes: o.keyframes } : {}), ...(o.modifiers.length ? { modifiers: o.modifiers } : {}),
  };
}

/** The public shape of a material in results. */
export function describeMaterial(m: MaterialRecord) {
  return { name: m.name, color: m.color, metallic: m.metallic, roughness: m.roughness };
}
