/**
 * JSON with object keys sorted, so equal data always gives equal text (and equal hashes).
 * Hot in versioning (a first save serialises every record of the project), so the usual case
 * goes through the engine's own JSON.stringify: it writes properties in the object's own order,
 * so a value whose objects all have sorted keys is written as is, and the others are copied with
 * their keys inserted in sorted order first (only the objects that need it). Values
 * JSON.stringify treats differently from plain data (functions, symbols, bigints, toJSON, very
 * deep nesting) and keys the engine orders by itself (integer-like keys come first, in numeric
 * order; `__proto__` cannot be assigned) take the hand-written path. The text must never change
 * for the same value: stored snapshots are addressed by its hash.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return sortedKeysJson(value);
  const sorted = sortedCopy(value, 0);
  return sorted === UNSUPPORTED ? sortedKeysJson(value) : JSON.stringify(sorted);
}

const MAX_FAST_DEPTH = 64;
const UNSUPPORTED = Symbol("unsupported");

/** Keys the engine would not keep in insertion order, or that cannot be assigned as data. */
function specialKey(key: string): boolean {
  const c = key.charCodeAt(0);
  return (c >= 48 && c <= 57) || key === "__proto__";
}

/** `value` with every object's keys in sorted order (itself when already so), or UNSUPPORTED. */
function sortedCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string": case "number": case "boolean": case "undefined":
      return value;
    case "object":
      break;
    default:
      return UNSUPPORTED;
  }
  if (value === null) return value;
  if (depth > MAX_FAST_DEPTH) return UNSUPPORTED;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i], depth + 1);
      if (item === UNSUPPORTED) return UNSUPPORTED;
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return UNSUPPORTED;
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let inOrder = true;
  for (let i = 0; i < keys.length; i++) {
    if (specialKey(keys[i])) return UNSUPPORTED;
    if (i > 0 && keys[i - 1] > keys[i]) inOrder = false;
  }
  if (!inOrder) keys.sort();
  // A copy is made only when the keys were out of order or a property's value was copied.
  let out: Record<string, unknown> | null = inOrder ? null : {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const item = sortedCopy(source[k], depth + 1);
    if (item === UNSUPPORTED) return UNSUPPORTED;
    if (out) out[k] = item;
    else if (item !== source[k]) {
      out = {};
      for (let j = 0; j < i; j++) out[keys[j]] = source[keys[j]];
      out[k] = item;
    }
  }
  return out ?? value;
}

/** The reference definition: recursive, keys sorted, undefined properties left out. */
export function sortedKeysJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(sortedKeysJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  let out = "{";
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (out.length > 1) out += ",";
    out += `${JSON.stringify(k)}:${sortedKeysJson(v)}`;
  }
  return `${out}}`;
}
