/**
 * Describes record differences for people and AI clients: per app, objects, materials and scenes
 * added, removed and changed, with each changed field's old and new value.
 */
import { describeMaterial, describeObject } from "../scene/operations";
import { canonicalJson } from "../scene/canonical-json";
import type { AppId, SceneEntity } from "../scene/types";

interface Kinds<T> { added: T[]; removed: T[]; changed: { name: string; scene?: string; fields: Record<string, { old: unknown; new: unknown }> }[] }

const describe = (r: SceneEntity): Record<string, unknown> =>
  r.type === "object" ? { ...describeObject(r), scene: r.scene }
  : r.type === "material" ? describeMaterial(r)
  : r.type === "scene" ? { name: r.name, camera: r.camera }
  : r.type === "app" ? { active_scene: r.activeScene }
  : { id: r.id };

function fieldChanges(a: Record<string, unknown>, b: Record<string, unknown>) {
  const fields: Record<string, { old: unknown; new: unknown }> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (canonicalJson(a[k]) !== canonicalJson(b[k])) fields[k] = { old: a[k] ?? null, new: b[k] ?? null };
  return fields;
}

/** Groups before/after pairs of records into a per-app report. */
export function describeDiff(pairs: { before: SceneEntity | null; after: SceneEntity | null }[]) {
  const apps: Partial<Record<AppId, { objects: Kinds<unknown>; materials: Kinds<unknown>; scenes: Kinds<unknown>; active_scene?: { old: unknown; new: unknown } }>> = {};
  let total = 0;
  for (const { before, after } of pairs) {
    const r = (after ?? before)!;
    if (r.type === "mesh" || r.type === "image") continue; // geometry and images are reported through the objects and materials that use them
    const app = r.app;
    const entry = (apps[app] ??= { objects: empty(), materials: empty(), scenes: empty() });
    total++;
    if (r.type === "app") {
      entry.active_scene = { old: before && before.type === "app" ? before.activeScene : null, new: after && after.type === "app" ? after.activeScene : null };
      continue;
    }
    const kinds = r.type === "object" ? entry.objects : r.type === "material" ? entry.materials : entry.scenes;
    if (!before) kinds.added.push(describe(after!));
    else if (!after) kinds.removed.push(describe(before));
    else kinds.changed.push({ name: r.name, ...(r.type === "object" ? { scene: r.scene } : {}), fields: fieldChanges(describe(before), describe(after)) });
  }
  return { apps, total_changes: total };
}

function empty<T>(): Kinds<T> {
  return { added: [], removed: [], changed: [] };
}
