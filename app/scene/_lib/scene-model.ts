/**
 * The scene page's copy of one app scene: what get_scene answers, kept up to date from the
 * `operation` events' records (GET /events), so a change shows without fetching the scene again.
 */
import { describeMaterial, describeObject } from "@/server/scene/operations";
import type { AppId, Camera, SceneEntity } from "@/server/scene/types";

export type ObjectView = ReturnType<typeof describeObject>;
export type MaterialView = ReturnType<typeof describeMaterial>;

export interface SceneModel {
  app: AppId;
  scene: string;
  scenes: string[];
  camera: Camera;
  objects: ObjectView[];
  materials: MaterialView[];
}

/** What get_scene answers (the fields the page uses). */
export type GetSceneResult = SceneModel & { active_scene: string };

/** The model from a get_scene result. */
export function modelFromScene(r: GetSceneResult): SceneModel {
  return { app: r.app, scene: r.scene, scenes: r.scenes, camera: r.camera, objects: r.objects, materials: r.materials };
}

/**
 * The model after records changed (an operation event's `records`), or the same model when none
 * concern it. Objects, materials and scenes stay in get_scene's order (by name, in code-unit
 * order as server/scene/state.ts sorts them), new ones in their place.
 */
export function applyRecords(model: SceneModel, records: readonly { id: string; after: SceneEntity | null }[]): SceneModel {
  let objects: ObjectView[] | null = null;
  let materials: MaterialView[] | null = null;
  let camera = model.camera;
  let scenes = model.scenes;
  const objectPrefix = `object/${model.app}/${encodeURIComponent(model.scene)}/`;
  for (const { id, after } of records) {
    if (id.startsWith(objectPrefix)) {
      const name = decodeURIComponent(id.slice(objectPrefix.length));
      objects ??= [...model.objects];
      const i = objects.findIndex((o) => o.name === name);
      if (after?.type !== "object") {
        if (i !== -1) objects.splice(i, 1);
      } else if (i === -1) insertByName(objects, describeObject(after));
      else objects[i] = describeObject(after);
    } else if (id.startsWith(`material/${model.app}/`)) {
      const name = decodeURIComponent(id.slice(`material/${model.app}/`.length));
      materials ??= [...model.materials];
      const i = materials.findIndex((m) => m.name === name);
      if (after?.type !== "material") {
        if (i !== -1) materials.splice(i, 1);
      } else if (i === -1) insertByName(materials, describeMaterial(after));
      else materials[i] = describeMaterial(after);
    } else if (id.startsWith(`scene/${model.app}/`)) {
      const name = decodeURIComponent(id.slice(`scene/${model.app}/`.length));
      if (name === model.scene && after?.type === "scene") camera = after.camera;
      if (after === null) scenes = scenes.filter((s) => s !== name);
      else if (!scenes.includes(name)) scenes = [...scenes, name].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }
  if (!objects && !materials && camera === model.camera && scenes === model.scenes) return model;
  return { ...model, camera, scenes, objects: objects ?? model.objects, materials: materials ?? model.materials };
}

/** Inserts `item` before the first entry whose name sorts after its own. */
function insertByName<T extends { name: string }>(list: T[], item: T): void {
  const at = list.findIndex((o) => o.name > item.name);
  list.splice(at === -1 ? list.length : at, 0, item);
}

/** Objects as a tree: children by parent name ("" for roots), in scene order. */
export function childrenByParent(objects: readonly ObjectView[]): Map<string, ObjectView[]> {
  const names = new Set(objects.map((o) => o.name));
  const out = new Map<string, ObjectView[]>();
  for (const o of objects) {
    const key = o.parent && names.has(o.parent) ? o.parent : "";
    const list = out.get(key) ?? [];
    list.push(o);
    out.set(key, list);
  }
  return out;
}
