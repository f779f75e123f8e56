/**
 * Custom properties (interchange `extras`) as USD customData: a nested `dictionary userProperties`
 * beside Kiln's own keys (kilnName, kilnMesh, …), so the two never clash. JSON maps to USD's typed
 * dictionary values: string → string, safe integer → int64, other number → double, boolean → bool,
 * object → dictionary, an array of only numbers / strings / booleans → double[] / string[] / bool[].
 * Anything else (null, empty or mixed arrays, arrays of objects or arrays, strings or keys that
 * are not valid Unicode, an object that looks like the wrapper) is a dictionary holding one
 * `string kilnJson` with its JSON text: other tools see the text, Kiln reads the value back, so
 * the round trip is lossless as JSON. Keys that are not identifiers are quoted (USD's grammar
 * allows a string as a dictionary key).
 */
import { dictType, isDict, type UsdPrim, type UsdValue } from "./usda-parse";
import { usdString } from "./usd";
import type { InterchangeExtras } from "./interchange";
import { budget, jsonDepth, LIMITS } from "./limits";

const WRAPPER = "kilnJson";
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A lone surrogate would become U+FFFD in the UTF-8 file; JSON text escapes it instead. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unicode = (s: string) => !LONE_SURROGATE.test(s);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const key = (k: string) => (IDENTIFIER.test(k) ? k : usdString(k));
const INDENT = "    ";

/** One typed dictionary entry, multi-line for dictionaries (continuation lines indented relative to the first). */
function entry(name: string, v: unknown, depth: number): string | undefined {
  const k = key(name);
  if (typeof v === "string" && unicode(v)) return `string ${k} = ${usdString(v)}`;
  if (typeof v === "number" && Number.isFinite(v)) return Number.isSafeInteger(v) ? `int64 ${k} = ${v}` : `double ${k} = ${String(v)}`;
  if (typeof v === "boolean") return `bool ${k} = ${v ? 1 : 0}`;
  if (Array.isArray(v) && v.length) {
    if (v.every((x) => typeof x === "number" && Number.isFinite(x))) return `double[] ${k} = [${v.map(String).join(", ")}]`;
    if (v.every((x) => typeof x === "string" && unicode(x))) return `string[] ${k} = [${v.map(usdString).join(", ")}]`;
    if (v.every((x) => typeof x === "boolean")) return `bool[] ${k} = [${v.map((x) => (x ? 1 : 0)).join(", ")}]`;
  }
  // Deeper than the reader accepts: the JSON text carries it (and the reader refuses it, naming the limit).
  if (isObject(v) && depth < LIMITS.propertiesDepth && Object.keys(v).every(unicode) && !(Object.keys(v).length === 1 && WRAPPER in v)) {
    const lines = Object.entries(v).flatMap(([c, x]) => entry(c, x, depth + 1)?.split("\n") ?? []);
    return [`dictionary ${k} = {`, ...lines.map((l) => INDENT + l), "}"].join("\n");
  }
  const json = JSON.stringify(v);
  // undefined (JSON leaves such a property out) has no text.
  return json === undefined ? undefined : [`dictionary ${k} = {`, `${INDENT}string ${WRAPPER} = ${usdString(json)}`, "}"].join("\n");
}

/** `extras` as one dictionary entry named `name` (none when there are no properties). */
export function userPropertiesEntry(name: string, extras: InterchangeExtras | undefined): string[] {
  if (!extras || !Object.keys(extras).length) return [];
  const e = entry(name, extras, 0);
  return e ? [e] : [];
}

/** The customData entry for `extras` (none when there are no properties). */
export const userPropertiesData = (extras: InterchangeExtras | undefined) => userPropertiesEntry("userProperties", extras);

/**
 * `customData.userProperties` of a prim (or one entry of a dictionary of them) as extras;
 * undefined when there are none. Values JSON cannot hold (inf, nan, time samples) are dropped with
 * a warning; nesting past LIMITS.propertiesDepth throws a LimitError naming the limit.
 */
export function readUserProperties(holder: UsdValue | undefined, name: string, what: string, warn: (m: string) => void): InterchangeExtras | undefined {
  if (!isDict(holder) || !(name in holder)) return undefined;
  if (!isDict(holder[name])) return warn(`usd: customData.${name} of ${what} is not a dictionary; ignored`), undefined;
  const dropped = (k: string) => warn(`usd: custom property "${k}" of ${what} dropped: its value is not JSON`);
  const tooDeep = `usd: custom properties of ${what} nest deeper than ${LIMITS.propertiesDepth} levels`;
  const DROP = Symbol("drop");
  // Recursion bounded by the parser's nesting cap (LIMITS.usdaDepth) and checked against ours.
  const json = (v: UsdValue, type: string | undefined, depth: number, label: string): unknown => {
    if (isDict(v)) {
      budget(depth <= LIMITS.propertiesDepth, tooDeep);
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === WRAPPER && typeof v[WRAPPER] === "string") {
        let parsed: unknown;
        try {
          parsed = JSON.parse(v[WRAPPER]);
        } catch {
          return dropped(label), DROP;
        }
        budget(depth + jsonDepth(parsed, LIMITS.propertiesDepth + 1) <= LIMITS.propertiesDepth + 1, tooDeep);
        return parsed;
      }
      const out: [string, unknown][] = [];
      for (const k of keys) {
        const x = json(v[k], dictType(v, k), depth + 1, k);
        if (x !== DROP) out.push([k, x]);
      }
      return Object.fromEntries(out); // own entries even for a "__proto__" key
    }
    const bool = type === "bool" || type === "bool[]";
    if (typeof v === "number") return !Number.isFinite(v) ? (dropped(label), DROP) : bool ? v !== 0 : v;
    if (typeof v === "string" || typeof v === "boolean" || v === null) return v;
    if (Array.isArray(v)) {
      budget(depth <= LIMITS.propertiesDepth, tooDeep);
      const items = v.map((x) => json(x, bool ? "bool" : undefined, depth + 1, label));
      return items.includes(DROP) ? DROP : items;
    }
    if (v instanceof Map) return dropped(label), DROP;
    return v.path; // a <path> value
  };
  const extras = json(holder[name], "dictionary", 0, name);
  return isObject(extras) && Object.keys(extras).length ? extras : undefined;
}

/** The attribute namespace Blender 4's USD exporter writes custom properties in. */
const ATTRIBUTE_NAMESPACE = "userProperties:";

/**
 * Custom properties written as attributes, one per property, `custom int userProperties:count = 3`
 * (what Blender 4's USD exporter writes, where Kiln writes customData): the name after the
 * namespace, the default value (or the earliest time sample), `bool` as true/false, tuples and
 * arrays of numbers as lists. `userProperties:blender:*` hold Blender's own object and data names,
 * not user data, and are left out; values JSON cannot hold are dropped with a warning.
 */
export function readPropertyAttributes(prim: UsdPrim, what: string, warn: (m: string) => void): InterchangeExtras | undefined {
  const out: [string, unknown][] = [];
  for (const [name, prop] of prim.properties) {
    if (!name.startsWith(ATTRIBUTE_NAMESPACE) || prop.type === "rel") continue;
    const key = name.slice(ATTRIBUTE_NAMESPACE.length);
    if (!key || key.startsWith("blender:")) continue;
    let v = prop.value;
    if (v === undefined && prop.timeSamples?.size) {
      // The earliest sample (a loop: a spread of 150,000 keys overflows the stack; NaN times skipped).
      let first = Infinity;
      for (const t of prop.timeSamples.keys()) if (t < first) first = t;
      v = prop.timeSamples.get(first);
    }
    if (v === undefined) continue; // declared without a value
    const bool = prop.type === "bool" || prop.type === "bool[]";
    const plain = (x: UsdValue | undefined): unknown => {
      if (typeof x === "number") return Number.isFinite(x) ? (bool ? x !== 0 : x) : undefined;
      if (typeof x === "string" || typeof x === "boolean") return x;
      if (Array.isArray(x)) {
        // Tuples in an array, [(1, 2, 3), (4, 5, 6)], as one flat list (the parser caps the nesting).
        const items: unknown[] = [];
        const walk = (a: UsdValue[]): void => void a.forEach((i) => (Array.isArray(i) ? walk(i) : items.push(plain(i))));
        walk(x);
        return items.every((i) => i !== undefined) ? items : undefined;
      }
      return undefined;
    };
    const value = plain(v);
    if (value === undefined) warn(`usd: custom property "${key}" of ${what} dropped: its value is not JSON`);
    else out.push([key, value]);
  }
  return out.length ? Object.fromEntries(out) : undefined;
}
