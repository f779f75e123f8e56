/**
 * Shared zod building blocks for tool inputs. Numbers accept numeric strings ("100") and booleans
 * accept "true"/"false", because query strings and recipe placeholders deliver text.
 */
import { z } from "zod";
import { APPS } from "../scene/types";

const toNumber = (v: unknown) => (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : v);
const toBoolean = (v: unknown) => (v === "true" ? true : v === "false" ? false : v);

/** A number parameter that also accepts a numeric string. */
export const num = <T extends z.ZodType<number>>(schema: T = z.number() as unknown as T) => z.preprocess(toNumber, schema);

/** A boolean parameter that also accepts "true" / "false". */
export const bool = () => z.preprocess(toBoolean, z.boolean());

/** Application identifier, matched case-insensitively and normalised to lowercase. */
export const appId = () =>
  z.preprocess((v) => (typeof v === "string" ? v.toLowerCase() : v), z.enum(APPS))
    .describe("In any letter case (Blender and blender are the same).");

/** Optional app; the handler falls back to KILN_DEFAULT_APP. */
export const appParam = () => appId().optional();

/**
 * Invisible characters that make a name show as something it is not (issue 26): bidirectional
 * overrides, embeddings and isolates (U+202A-U+202E, U+2066-U+2069: "Cube\u202Egnp.exe"), the
 * directional marks (U+200E, U+200F, U+061C), zero-width space and word joiner (U+200B, U+2060),
 * the BOM (U+FEFF), other invisible format characters (soft hyphen U+00AD, U+180E, U+2061-U+2064,
 * U+206A-U+206F, U+FFF9-U+FFFB) and C1 controls (U+0080-U+009F). Refused, not silently removed:
 * two names that differ only by them would otherwise become the same name.
 * Zero-width joiner and non-joiner (U+200D, U+200C) are allowed only between two visible
 * characters, where emoji sequences and Persian or Indic words need them.
 */
const INVISIBLE = /[\u0080-\u009f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|^[\u200c\u200d]|[\u200c\u200d]$|[\u200c\u200d]{2}|\s[\u200c\u200d]|[\u200c\u200d]\s/u;

/** The first invisible or bidirectional control character of `text` as "U+202E at 5", or undefined. */
export function invisibleIn(text: string): string | undefined {
  const m = INVISIBLE.exec(text);
  if (!m) return undefined;
  const at = m[0].search(/[^\s]/u);
  const ch = m[0][Math.max(0, at)];
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} at ${m.index + Math.max(0, at)}`;
}

/** A display name: 1-200 characters, no control characters, no invisible or bidirectional controls. */
export const name = (what = "Name", max = 200) =>
  z.string().min(1, { message: `${what} must not be empty`, abort: true }).max(max, { abort: true })
    .regex(/^[^\u0000-\u001f\u007f]+$/, `${what} must not contain control characters`)
    .superRefine((text, ctx) => {
      const found = invisibleIn(text);
      if (found) ctx.addIssue({ code: "custom", message: `${what} must not contain invisible or bidirectional control characters (${found})` });
    });

/**
 * Ranges of vector components (docs/api.md, "Number ranges"). Everything accepted must stay
 * finite through world matrices, exports and imports: 1e308 is finite, but its first product is not.
 */
export const VECTOR_RANGES = {
  /** Metres from the origin. */
  position: { max: 1e9 },
  /** Euler degrees. */
  rotation: { max: 1e6 },
  /** Scale factors: 0, or a magnitude from 1e-6 to 1e6 (an inverse must stay finite too). */
  scale: { max: 1e6, minNonZero: 1e-6 },
  /** Array-modifier shift per copy, as a fraction of the mesh's size. */
  offset: { max: 1e3 },
} as const;

type VectorKind = keyof typeof VECTOR_RANGES;

const coord = (kind: VectorKind) => {
  const range: { max: number; minNonZero?: number } = VECTOR_RANGES[kind];
  let component = z.number().finite().min(-range.max).max(range.max);
  if (range.minNonZero !== undefined) {
    const min = range.minNonZero;
    component = component.refine((v) => v === 0 || Math.abs(v) >= min, `a ${kind} component is 0 or at least ${min} in magnitude`);
  }
  return num(component).optional();
};

/** A vector with optional components {x, y, z}, each within the range of its kind. */
export const vec3 = (kind: VectorKind) =>
  z.strictObject({ x: coord(kind), y: coord(kind), z: coord(kind) }).meta({ kiln: "vector" });

const unit = () => num(z.number().min(0).max(1));

/** A colour {r, g, b, a} with components 0..1; alpha defaults to 1. */
export const color = () =>
  z.strictObject({ r: unit(), g: unit(), b: unit(), a: unit().default(1) }).meta({ kiln: "color" });

export const vecOut = z.object({ x: z.number(), y: z.number(), z: z.number() });
export const colorOut = z.object({ r: z.number(), g: z.number(), b: z.number(), a: z.number() });

/**
 * Text that cannot be stored or encoded everywhere: a NUL (PostgreSQL text refuses it, C strings
 * end at it) or a lone UTF-16 surrogate (no UTF-8 encoding exists, so encodeURIComponent and
 * every writer throw). Checked centrally on every tool's raw input, keys included.
 */
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first string (value or key) in `input` that BAD_TEXT refuses, with its path and why. */
export function findUnencodableText(input: unknown): { path: string; message: string } | undefined {
  const why = (text: string) =>
    text.includes("\u0000") ? "must not contain a NUL character (\\u0000)" : "must not contain a lone UTF-16 surrogate (it has no UTF-8 encoding)";
  // Parent links instead of path copies: input may nest 100,000 levels deep (it is refused later).
  type Entry = { value: unknown; key?: string | number; parent?: Entry };
  const pathOf = (entry: Entry | undefined, last?: string) => {
    const parts: (string | number)[] = last === undefined ? [] : [last];
    for (let e = entry; e && e.key !== undefined; e = e.parent) parts.unshift(e.key);
    return parts.join(".");
  };
  const stack: Entry[] = [{ value: input }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const { value } = entry;
    if (typeof value === "string") {
      if (BAD_TEXT.test(value)) return { path: pathOf(entry), message: `Text ${why(value)}.` };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: entry });
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (BAD_TEXT.test(key)) return { path: pathOf(entry, key), message: `A parameter name ${why(key)}.` };
        stack.push({ value: item, key, parent: entry });
      }
    }
  }
  return undefined;
}
