/**
 * A diff (diff_versions) in words and cells for people: values formatted as the studio shows
 * them everywhere (vectors as (x, y, z), keyframes as their times), a changed field that is an
 * object split into the sub-fields that changed (light.intensity, not the whole light as JSON),
 * and per app what a restore would do.
 */
import type { Diff } from "@/app/_lib/studio-api";

type Part = Diff["apps"][string];
type Changed = { name: string; scene?: string; fields: Record<string, { old: unknown; new: unknown }> };

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (n: unknown) => (typeof n === "number" ? String(Math.round(n * 1000) / 1000) : String(n));

/** A value in a cell: vectors and colours compactly, keyframes as their times, other objects as JSON. */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v) && v.length > 0 && v.every((k) => typeof (k as { time?: unknown })?.time === "number"))
    return `${v.length} key${v.length === 1 ? "" : "s"} at ${v.map((k) => num((k as { time: number }).time)).join(", ")} s`;
  if (isPlain(v)) {
    const keys = Object.keys(v).sort().join();
    if (keys === "x,y,z") return `(${num(v.x)}, ${num(v.y)}, ${num(v.z)})`;
    if (keys === "a,b,g,r") return `rgba(${num(v.r)}, ${num(v.g)}, ${num(v.b)}, ${num(v.a)})`;
  }
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** The whole value for a tooltip, when the cell shows less of it. */
export const valueDetail = (v: unknown) => (v !== null && typeof v === "object" ? JSON.stringify(v, null, 1) : undefined);

/** One row of a changed record: a field (or sub-field, `light.intensity`) with its two values. */
export interface FieldRow { field: string; old: unknown; new: unknown }

/**
 * The rows of a changed record: a field whose two values are both objects (a light, a material's
 * textures) is split into the sub-fields that differ, unless it is a vector or colour, which read
 * better whole.
 */
export function fieldRows(fields: Changed["fields"]): FieldRow[] {
  const rows: FieldRow[] = [];
  const walk = (path: string, a: unknown, b: unknown, depth: number) => {
    const compact = (v: unknown) => isPlain(v) && /^(x,y,z|a,b,g,r)$/.test(Object.keys(v).sort().join());
    if (depth < 3 && isPlain(a) && isPlain(b) && !compact(a) && !compact(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) walk(`${path}.${k}`, a[k], b[k], depth + 1);
      return;
    }
    rows.push({ field: path, old: a ?? null, new: b ?? null });
  };
  for (const [field, v] of Object.entries(fields)) walk(field, v.old, v.new, 0);
  return rows;
}

/** An added or removed record's properties to show beside it (its name, scene, kind (the type says it) and nulls left out). */
export function properties(x: unknown): [string, string][] {
  if (!isPlain(x)) return [];
  return Object.entries(x)
    .filter(([k, v]) => k !== "name" && k !== "scene" && k !== "kind" && v !== null && v !== undefined)
    .flatMap(([k, v]): [string, string][] =>
      isPlain(v) && !/^(x,y,z|a,b,g,r)$/.test(Object.keys(v).sort().join())
        ? Object.entries(v).filter(([, s]) => s !== null && s !== undefined).map(([s, w]) => [`${k}.${s}`, formatValue(w)])
        : [[k, formatValue(v)]]);
}

const nameOf = (x: unknown) => String((x as { name?: unknown })?.name ?? "?");
const list = (names: string[], max = 4) => (names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`);

/**
 * What restoring changes in one app, as phrases, from the diff of the working state (from) to the
 * version (to): objects deleted, brought back and changed, materials, scenes, the active scene.
 */
export function restorePhrases(part: Part): string[] {
  const out: string[] = [];
  const kinds = [["object", part.objects], ["material", part.materials], ["scene", part.scenes]] as const;
  for (const [label, k] of kinds) {
    const plural = (n: number) => `${n} ${label}${n === 1 ? "" : "s"}`;
    if (k.removed.length) out.push(`deletes ${plural(k.removed.length)} (${list(k.removed.map(nameOf))})`);
    if (k.added.length) out.push(`brings back ${plural(k.added.length)} (${list(k.added.map(nameOf))})`);
    if (k.changed.length) {
      const changed = k.changed as Changed[];
      out.push(`changes ${plural(changed.length)} (${list(changed.map((c) => `${c.name}: ${list(fieldRows(c.fields).map((r) => r.field), 3)}`), 3)})`);
    }
  }
  const active = part.active_scene as { old: unknown; new: unknown } | undefined;
  if (active) out.push(`makes ${formatValue(active.new)} the active scene (now ${formatValue(active.old)})`);
  return out;
}
