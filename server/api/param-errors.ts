/**
 * INVALID_PARAMS errors written for people, for every tool, from the tool's own input schema:
 * each zod issue becomes `{path, message, expected}`, where `expected` is read from the JSON
 * Schema of that parameter (type, range, allowed values, description), so no tool describes its
 * parameters twice. Example: `Missing required parameter "recipe" (string of 1-200 characters:
 * The recipe's name: letters, digits and hyphens.)`.
 */
import { z } from "zod";
import { KilnError } from "../errors";
import { closestMatch } from "../recipes/suggest";

type Json = Record<string, unknown>;

/** One bad parameter, as `details.fields` lists it. */
export interface FieldProblem { path: string; message: string; expected?: string }

const schemas = new WeakMap<z.ZodType, Json>();

function jsonSchemaOf(input: z.ZodType): Json {
  let json = schemas.get(input);
  if (!json) {
    json = z.toJSONSchema(input, { io: "input", unrepresentable: "any" }) as Json;
    schemas.set(input, json);
  }
  return json;
}

/** The schema of the value at `path`, following object properties, records, arrays and unions. */
function schemaAt(root: Json, path: PropertyKey[]): Json | undefined {
  let at: Json | undefined = root;
  for (const key of path) {
    if (!at) return undefined;
    const options = (at.anyOf ?? at.oneOf) as Json[] | undefined;
    if (options) at = options.find((o) => o.type === "object" || o.type === "array") ?? options[0];
    const props = at.properties as Record<string, Json> | undefined;
    if (typeof key === "number" && at.items) at = at.items as Json;
    else if (props && Object.hasOwn(props, String(key))) at = props[String(key)];
    else if (at.additionalProperties && typeof at.additionalProperties === "object") at = at.additionalProperties as Json;
    else return undefined;
  }
  return at;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let at = input;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

function range(s: Json, unit = ""): string {
  const lo = s.minimum ?? s.exclusiveMinimum, hi = s.maximum ?? s.exclusiveMaximum;
  if (lo !== undefined && hi !== undefined && s.minimum !== undefined && s.maximum !== undefined) return ` from ${lo} to ${hi}${unit}`;
  const parts = [
    s.minimum !== undefined ? `>= ${s.minimum}` : s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : "",
    s.maximum !== undefined ? `<= ${s.maximum}` : s.exclusiveMaximum !== undefined ? `< ${s.exclusiveMaximum}` : "",
  ].filter(Boolean);
  return parts.length ? ` ${parts.join(" and ")}` : "";
}

/** What a schema accepts, in a few words: "number from 0 to 1", "one of Plane, Cube", "object {x, y, z}". */
export function describeSchema(s: Json | undefined): string {
  if (!s) return "nothing (not a parameter)";
  const options = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  let what: string;
  if (Array.isArray(s.enum)) what = `one of ${(s.enum as unknown[]).map(String).join(", ")}`;
  else if (s.const !== undefined) what = JSON.stringify(s.const);
  else if (options) what = options.map((o) => describeSchema({ ...o, description: undefined })).join(" or ");
  else if (s.type === "string") {
    const len = s.minLength !== undefined && s.maxLength !== undefined ? ` of ${s.minLength}-${s.maxLength} characters` : s.maxLength !== undefined ? ` of at most ${s.maxLength} characters` : "";
    what = s.format === "uuid" ? "a UUID" : `string${len}`;
  } else if (s.type === "integer") what = `whole number${range(s)}`;
  else if (s.type === "number") what = `number${range(s)}`;
  else if (s.type === "boolean") what = "true or false";
  else if (s.type === "array") what = `list of ${describeSchema({ ...(s.items as Json), description: undefined })}`;
  else if (s.type === "object") {
    const keys = Object.keys((s.properties as Json | undefined) ?? {});
    what = keys.length ? `object {${keys.join(", ")}}` : "object of name: value";
  } else what = "any value";
  return typeof s.description === "string" ? `${what}: ${s.description}` : what;
}

function showValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return String(v);
}

const DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized)/;

function describeIssue(issue: z.core.$ZodIssue, root: Json, input: unknown): FieldProblem[] {
  const path = issue.path.map(String).join(".");
  const name = path || "(the body)";
  if (issue.code === "unrecognized_keys") {
    const known = Object.keys((schemaAt(root, issue.path)?.properties as Json | undefined) ?? {});
    const expected = known.length ? `one of ${known.join(", ")}` : "no parameters";
    return issue.keys.map((key) => {
      const full = [...issue.path.map(String), key].join(".");
      const match = closestMatch(key, known);
      const hint = match ? ` (did you mean "${match}"?)` : known.length ? ` (known: ${known.join(", ")})` : "";
      return { path: full, message: `Unknown parameter "${full}"${hint}.`, expected };
    });
  }
  const schema = schemaAt(root, issue.path);
  const expected = describeSchema(schema);
  const value = valueAt(input, issue.path);
  if (issue.path.length === 0 && issue.code === "invalid_type")
    return [{ path, message: `The parameters must be a JSON object (${describeSchema({ ...root, description: undefined })}), not ${value === undefined ? "nothing" : showValue(value)}.`, expected }];
  // Absent, whatever the schema (a type, or a list of values whose issue is invalid_value).
  if ((issue.code === "invalid_type" || issue.code === "invalid_value") && value === undefined)
    return [{ path, message: `Missing required parameter "${name}" (${expected}).`, expected }];
  if (issue.code === "custom") return [{ path, message: `Parameter "${name}": ${issue.message}.`, expected }];
  const own = DEFAULT_MESSAGE.test(issue.message) ? "" : `${issue.message}; `;
  const got = value === undefined ? "" : `, not ${showValue(value)}`;
  const short = describeSchema(schema && { ...schema, description: undefined });
  return [{ path, message: `Parameter "${name}": ${own}expected ${short}${got}.`, expected }];
}

/** Field problems of a zod error against the schema that raised it, for `details.fields`. */
export function paramProblems(error: z.ZodError, input: z.ZodType, raw: unknown): FieldProblem[] {
  const root = jsonSchemaOf(input);
  return error.issues.flatMap((issue) => describeIssue(issue, root, raw));
}

/** The INVALID_PARAMS error (400) for a tool's parameters that did not validate. */
export function invalidParams(tool: string, error: z.ZodError, input: z.ZodType, raw: unknown): KilnError {
  const fields = paramProblems(error, input, raw);
  const [first] = fields;
  const more = fields.length > 1 ? ` And ${fields.length - 1} more problem${fields.length > 2 ? "s" : ""}; see details.fields.` : "";
  return new KilnError("INVALID_PARAMS", `${first?.message ?? `Invalid parameters for ${tool}.`}${more}`, 400, { tool, fields });
}
