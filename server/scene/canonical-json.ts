/**
 * JSON with object keys sorted, so equal data always gives equal text (and equal hashes).
 * Hot in versioning (a first save hashes every record of the project), so the usual case goes
 * through the engine's own JSON.stringify: given an array of property names as its replacer,
 * it writes every object's properties in that array's order, so the sorted list of every key in
 * the value gives exactly the sorted-keys text. Values JSON.stringify treats differently from
 * plain data (functions, symbols, bigints, toJSON, cycles, very deep nesting) take the
 * hand-written path. The text must never change for the same value: stored snapshots are
 * addressed by its hash.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return sortedKeysJson(value);
  const keys = new Set<string>();
  if (!collectKeys(value, keys, 0)) return sortedKeysJson(value);
  return JSON.stringify(value, [...keys].sort());
}

const MAX_FAST_DEPTH = 64;

/** Adds every property name in `value` to `keys`; false when the fast path would differ. */
function collectKeys(value: object, keys: Set<string>, depth: number): boolean {
  if (depth > MAX_FAST_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainItem(item, keys, depth)) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  for (const key of Object.keys(value)) {
    keys.add(key);
    if (!plainItem((value as Record<string, unknown>)[key], keys, depth)) return false;
  }
  return true;
}

function plainItem(item: unknown, keys: Set<string>, depth: number): boolean {
  switch (typeof item) {
    case "string": case "number": case "boolean": case "undefined":
      return true;
    case "object":
      return item === null || collectKeys(item, keys, depth + 1);
    default:
      return false;
  }
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
