/**
 * Taking records as they are: the operation behind edits made in a live application and behind
 * adopting a live application's scene. Pure, like every operation: (state, params) → changes.
 *
 * The records arrive whole (the app reports what an object now is, not which tool made it so),
 * already validated in shape and in the app's own conventions. This step checks what only the
 * state can tell (that parents, scenes and materials exist once the edit is applied) and turns the
 * records into record-level changes, so history, undo, versions and transactions treat a hand edit
 * like any other operation.
 */
import { invalid } from "../errors";
import { sameRecord } from "./changes";
import { ids, type AppId, type Change, type ObjectRecord, type OperationOutcome, type SceneEntity, type SceneState } from "./types";

export interface SyncParams {
  app: AppId;
  /** New or changed records of `app` (and the mesh records they use). */
  records: SceneEntity[];
  /** Ids of records of `app` that no longer exist. */
  deleted?: string[];
  /** The records are the app's whole scene: every other record of the app is deleted. */
  replace?: boolean;
}

/** Whether a record id belongs to an app's scenes (meshes are shared by content, so belong to none). */
export function belongsTo(id: string, app: AppId): boolean {
  return id === ids.app(app) || id.startsWith(`scene/${app}/`) || id.startsWith(`object/${app}/`) || id.startsWith(`material/${app}/`);
}

/** The id a record must have, from its own fields. */
function idOf(r: SceneEntity): string {
  switch (r.type) {
    case "app": return ids.app(r.app);
    case "scene": return ids.scene(r.app, r.name);
    case "object": return ids.object(r.app, r.scene, r.name);
    case "material": return ids.material(r.app, r.name);
    case "mesh": return r.id;
    case "image": return r.id;
  }
}

export function syncRecords(state: SceneState, p: SyncParams): OperationOutcome {
  const next = new Map<string, SceneEntity | null>();
  for (const r of p.records) {
    if (r.type !== "mesh" && r.type !== "image" && r.app !== p.app)
      throw invalid("INVALID_EDIT", `A record of ${r.app} cannot be part of an edit of ${p.app}.`, { id: r.id });
    const id = idOf(r);
    if (next.has(id)) throw invalid("INVALID_EDIT", `The edit names ${id} twice.`, { id });
    next.set(id, r.id === id ? r : { ...r, id });
  }
  for (const id of p.deleted ?? []) {
    if (!belongsTo(id, p.app)) throw invalid("INVALID_EDIT", `"${id}" is not a record of ${p.app}.`, { id });
    // The app record holds the active scene, which holds the camera: an app's scene cannot exist
    // without them, so they are changed, never deleted (a scene record only with another active).
    if (id === ids.app(p.app)) throw invalid("INVALID_EDIT", `"${id}" is the app itself and cannot be deleted.`, { id });
    if (next.has(id)) throw invalid("INVALID_EDIT", `The edit both changes and deletes ${id}.`, { id });
    if (state.has(id)) next.set(id, null);
  }
  if (p.replace) {
    if (!next.get(ids.app(p.app))) throw invalid("INVALID_EDIT", `A whole scene of ${p.app} must say which scene is active.`);
    for (const [id] of state) if (belongsTo(id, p.app) && !next.has(id)) next.set(id, null);
  }
  const after = (id: string) => (next.has(id) ? next.get(id)! : state.get(id) ?? null);
  checkReferences(state, p.app, next, after);

  const changes: Change[] = [];
  for (const [id, record] of next) {
    const before = state.get(id) ?? null;
    if (!sameRecord(before, record)) changes.push({ id, before, after: record });
  }
  const deleted = changes.filter((c) => !c.after).length;
  return { changes, result: { app: p.app, changed: changes.length - deleted, deleted } };
}

/** Everything the edit touches must still point at things that exist once it is applied. */
function checkReferences(state: SceneState, app: AppId, next: Map<string, SceneEntity | null>, after: (id: string) => SceneEntity | null) {
  const appRecord = after(ids.app(app));
  if (appRecord?.type === "app" && !after(ids.scene(app, appRecord.activeScene)))
    throw invalid("INVALID_EDIT", `The active scene "${appRecord.activeScene}" of ${app} does not exist.`);
  // Objects whose scene, parent or material the edit removes, and the edit's own objects.
  const touched = new Set<ObjectRecord>();
  for (const [, r] of next) if (r?.type === "object") touched.add(r);
  const removed = [...next].filter(([, r]) => r === null).map(([id]) => id);
  if (removed.length) {
    for (const r of state.values()) if (r.type === "object" && r.app === app && next.get(r.id) !== null) touched.add(after(r.id) as ObjectRecord);
  }
  for (const o of touched) {
    if (!after(ids.scene(app, o.scene)))
      throw invalid("INVALID_EDIT", `"${o.name}" is in scene "${o.scene}", which does not exist.`, { id: o.id });
    if (o.parent !== null && after(ids.object(app, o.scene, o.parent))?.type !== "object")
      throw invalid("INVALID_EDIT", `The parent "${o.parent}" of "${o.name}" does not exist in scene "${o.scene}".`, { id: o.id });
    if (o.material !== null && after(ids.material(app, o.material))?.type !== "material")
      throw invalid("INVALID_EDIT", `The material "${o.material}" of "${o.name}" does not exist.`, { id: o.id });
    if (o.mesh !== null && after(o.mesh)?.type !== "mesh")
      throw invalid("INVALID_EDIT", `The mesh of "${o.name}" is not known to Kiln.`, { id: o.id });
  }
}
