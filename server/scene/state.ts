/**
 * Reading the working state: the initial state and typed lookups. Pure.
 */
import { conflict, notFound } from "../errors";
import { IndexedState } from "./indexed-state";
import {
  APPS, ids,
  type AppId, type AppRecord, type Camera, type MaterialRecord, type ObjectRecord, type SceneEntity,
  type SceneRecord, type SceneState,
} from "./types";

/** The scene every app starts with. */
export const DEFAULT_SCENE = "Main";

/**
 * Each app's default camera, in its own conventions: Unity's Main Camera sits at z = -10
 * looking +Z; Godot's cameras look -Z; Blender's default camera looks at the origin from +X -Y.
 */
export const DEFAULT_CAMERAS: Record<AppId, Camera> = {
  unity: { position: { x: 0, y: 1, z: -10 }, rotation: { x: 0, y: 0, z: 0 }, fov: 60 },
  godot: { position: { x: 0, y: 1, z: 10 }, rotation: { x: 0, y: 0, z: 0 }, fov: 70 },
  blender: { position: { x: 7.36, y: -6.93, z: 4.96 }, rotation: { x: 63.6, y: 0, z: 46.7 }, fov: 40 },
};

/** A new scene record with the app's default camera. */
export function newScene(app: AppId, name: string): SceneRecord {
  return { type: "scene", id: ids.scene(app, name), app, name, camera: structuredClone(DEFAULT_CAMERAS[app]) };
}

/** The state of a new project: every app with one empty scene. */
export function initialState(): IndexedState {
  const state = new IndexedState();
  for (const app of APPS) {
    const appRecord: AppRecord = { type: "app", id: ids.app(app), app, activeScene: DEFAULT_SCENE };
    const scene = newScene(app, DEFAULT_SCENE);
    state.set(appRecord.id, appRecord);
    state.set(scene.id, scene);
  }
  return state;
}

export function getApp(state: SceneState, app: AppId): AppRecord {
  return state.get(ids.app(app)) as AppRecord;
}

/** The named scene, or the app's active scene when no name is given. */
export function getScene(state: SceneState, app: AppId, name?: string): SceneRecord {
  const sceneName = name ?? getApp(state, app).activeScene;
  const scene = state.get(ids.scene(app, sceneName)) as SceneRecord | undefined;
  if (!scene)
    throw notFound("SCENE_NOT_FOUND", `${app} has no scene named "${sceneName}".`, {
      app, scene: sceneName, scenes: listScenes(state, app).map((s) => s.name),
    });
  return scene;
}

/**
 * Records of one type matching a filter: from the container index when the state has one
 * (the working state always does), else by a scan (plain maps in tests and tools).
 */
function members<T extends SceneEntity>(state: SceneState, group: "objects" | "scenes" | "materials", key: string, match: (r: SceneEntity) => r is T): T[] {
  // Duck-typed: bundlers may load IndexedState twice, and instanceof would then miss the index.
  if (typeof (state as IndexedState).members === "function") return (state as IndexedState).members(group, key) as T[];
  const out: T[] = [];
  for (const r of state.values()) if (match(r)) out.push(r);
  return out;
}

export function listScenes(state: SceneState, app: AppId): SceneRecord[] {
  return members(state, "scenes", app, (r): r is SceneRecord => r.type === "scene" && r.app === app).sort(byName);
}

export function findObject(state: SceneState, scene: SceneRecord, name: string): ObjectRecord | undefined {
  return state.get(ids.object(scene.app, scene.name, name)) as ObjectRecord | undefined;
}

export function getObject(state: SceneState, scene: SceneRecord, name: string): ObjectRecord {
  const obj = findObject(state, scene, name);
  if (!obj)
    throw notFound("OBJECT_NOT_FOUND", `Scene "${scene.name}" of ${scene.app} has no object named "${name}".`, {
      app: scene.app, scene: scene.name, name,
    });
  return obj;
}

export function assertNoObject(state: SceneState, scene: SceneRecord, name: string): void {
  if (findObject(state, scene, name))
    throw conflict("NAME_CONFLICT", `Scene "${scene.name}" of ${scene.app} already has an object named "${name}".`, {
      app: scene.app, scene: scene.name, name,
    });
}

/**
 * Objects of a scene, sorted by name. Sorted rather than in insertion order so that the same
 * state always lists the same way, whatever history (restores, rollbacks) produced it.
 */
export function sceneObjects(state: SceneState, scene: SceneRecord): ObjectRecord[] {
  return members(state, "objects", `${scene.app}/${scene.name}`, (r): r is ObjectRecord => r.type === "object" && r.app === scene.app && r.scene === scene.name).sort(byName);
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function getMaterial(state: SceneState, app: AppId, name: string): MaterialRecord {
  const m = state.get(ids.material(app, name)) as MaterialRecord | undefined;
  if (!m) throw notFound("MATERIAL_NOT_FOUND", `${app} has no material named "${name}".`, { app, name });
  return m;
}

export function appMaterials(state: SceneState, app: AppId): MaterialRecord[] {
  return members(state, "materials", app, (r): r is MaterialRecord => r.type === "material" && r.app === app).sort(byName);
}
