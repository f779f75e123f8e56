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
    .describe("Application: blender, unity or godot (case-insensitive).");

/** Optional app; the handler falls back to KILN_DEFAULT_APP. */
export const appParam = () => appId().optional();

/** A display name: 1-200 characters, no control characters. */
export const name = (what = "Name") =>
  z.string().min(1, { message: `${what} must not be empty`, abort: true }).max(200, { abort: true })
    .regex(/^[^\u0000-\u001f\u007f]+$/, `${what} must not contain control characters`);

const coord = () => num(z.number().finite()).optional();

/** A vector with optional components {x, y, z}. */
export const vec3 = () => z.strictObject({ x: coord(), y: coord(), z: coord() }).meta({ kiln: "vector" });

const unit = () => num(z.number().min(0).max(1));

/** A colour {r, g, b, a} with components 0..1; alpha defaults to 1. */
export const color = () =>
  z.strictObject({ r: unit(), g: unit(), b: unit(), a: unit().default(1) }).meta({ kiln: "color" });

export const vecOut = z.object({ x: z.number(), y: z.number(), z: z.number() });
export const colorOut = z.object({ r: z.number(), g: z.number(), b: z.number(), a: z.number() });
