/**
 * `{{ placeholder }}` substitution in step params (DECISIONS, Recipes). Invariants:
 * - a string that is exactly one placeholder takes the referenced value with its type
 *   (`"{{ ground_size }}"` → the number 100); inside longer text a value is interpolated as text,
 *   objects and arrays as JSON;
 * - an undefined variable or a missing result path is an error, never an empty string;
 * - templates are parsed once (compileParams); variables are fixed for a run, so everything that
 *   depends only on them is rendered at compile time and only step-result references remain.
 * Grammar inside the braces (whitespace optional): `name`, `vars.name`,
 * `steps.<id>.result[.key|.index]...`, `steps.<id>.status`, `steps.<id>.error[.key]...`.
 * There is no escape: text with `{{` that is not a placeholder is an error, to catch typos.
 */
import type { PathSegment } from "./parse";
import type { VariableValue } from "./types";

/** What a placeholder reads. */
export type TemplateRef =
  | { kind: "var"; name: string }
  | { kind: "step"; id: string; field: "result" | "status" | "error"; path: string[] };

/** A reference found in params, with where it sits (relative to the params mapping). */
export interface RefUse {
  ref: TemplateRef;
  path: PathSegment[];
  /** True when the string is exactly this one placeholder (the value keeps its type). */
  exact: boolean;
}

/** Thrown by resolvers and render when a reference cannot be satisfied. */
export class TemplateError extends Error {
  readonly code = "TEMPLATE_ERROR";
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VAR_REF = /^(?:vars\.)?([A-Za-z_][A-Za-z0-9_]*)$/;
const STEP_REF = /^steps\.([a-z0-9_]+)\.(result|status|error)((?:\.[A-Za-z0-9_-]+)*)$/;

type Part = string | TemplateRef;

/**
 * Parses one string into literal parts and references; a string without `{{` returns undefined.
 * Throws TemplateError on a malformed placeholder.
 */
export function parseTemplate(text: string): Part[] | undefined {
  if (!text.includes("{{")) return undefined;
  const parts: Part[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push(parseRef(match[1]));
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  if (parts.some((part) => typeof part === "string" && part.includes("{{"))) {
    throw new TemplateError(`unclosed or malformed placeholder in "${text}"`);
  }
  return parts;
}

function parseRef(body: string): TemplateRef {
  const variable = VAR_REF.exec(body);
  if (variable && variable[1] !== "steps") return { kind: "var", name: variable[1] };
  const step = STEP_REF.exec(body);
  if (step) {
    const path = step[3] === "" ? [] : step[3].slice(1).split(".");
    if (step[2] === "status" && path.length > 0) throw new TemplateError(`steps.${step[1]}.status has no fields`);
    return { kind: "step", id: step[1], field: step[2] as "result" | "status" | "error", path };
  }
  throw new TemplateError(
    `invalid placeholder "{{ ${body} }}": expected a variable name or steps.<id>.result.<path>`,
  );
}

/** Shows a reference the way it was written, for messages. */
export function refText(ref: TemplateRef): string {
  return ref.kind === "var" ? ref.name : [`steps.${ref.id}.${ref.field}`, ...ref.path].join(".");
}

type StepRef = Extract<TemplateRef, { kind: "step" }>;
const isRef = (part: unknown): part is StepRef => typeof part === "object" && part !== null;

/** Reads step-result references at run time; throws TemplateError when there is no such value. */
export type StepResolver = (ref: StepRef) => unknown;

/** A params tree ready to render; nodes that need no step result are already plain values. */
type Compiled =
  | { k: "value"; v: unknown }
  | { k: "ref"; ref: StepRef }
  | { k: "text"; parts: (string | StepRef)[] }
  | { k: "object"; entries: [string, Compiled][] }
  | { k: "array"; items: Compiled[] };

/** Params compiled against fixed variables; `render` fills in step results. */
export interface CompiledParams {
  /** Every reference in the params (for validation: variables defined, steps earlier). */
  refs: RefUse[];
  /** Undefined variables and malformed placeholders; render must not be used when not empty. */
  errors: { path: PathSegment[]; message: string }[];
  /** True when rendering needs step results; otherwise `render` returns the same static value. */
  dynamic: boolean;
  render(resolveStep: StepResolver): Record<string, unknown>;
}

/** Formats a value for interpolation inside a longer string. */
function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return String(value);
  return JSON.stringify(value);
}

/**
 * Compiles a params mapping once. Variable references are resolved now with `resolveVar`
 * (undefined → an error is recorded); step references stay for `render`.
 * @example
 * const params = compileParams({ name: "{{ scene_name }}" }, (name) => vars[name]);
 * params.render(() => undefined); // { name: "MyScene" }
 */
export function compileParams(
  params: Record<string, unknown>,
  resolveVar: (name: string) => VariableValue | undefined,
): CompiledParams {
  const refs: RefUse[] = [];
  const errors: CompiledParams["errors"] = [];
  // One shared path stack, copied only when something is recorded: compile runs once per run,
  // but on 1,000-step recipes per-node path arrays were most of its garbage.
  const path: PathSegment[] = [];
  const compileString = (value: string): Compiled => {
    let parts: Part[] | undefined;
    try {
      parts = parseTemplate(value);
    } catch (error) {
      errors.push({ path: path.slice(), message: (error as Error).message });
      return { k: "value", v: value };
    }
    if (!parts) return { k: "value", v: value };
    const exact = parts.length === 1;
    const at = path.slice();
    // Variables are fixed for the run: substitute them now, keep only step references.
    const resolved = parts.map((part): string | VariableValue | StepRef => {
      if (typeof part === "string") return part;
      refs.push({ ref: part, path: at, exact });
      if (part.kind === "step") return part;
      const found = resolveVar(part.name);
      if (found === undefined) errors.push({ path: at, message: `undefined variable "${part.name}" in "${value}"` });
      return found ?? "";
    });
    if (exact) return isRef(resolved[0]) ? { k: "ref", ref: resolved[0] } : { k: "value", v: resolved[0] };
    if (!resolved.some(isRef)) return { k: "value", v: resolved.map(asText).join("") };
    return { k: "text", parts: resolved.map((p) => (isRef(p) ? p : asText(p))) };
  };
  const visit = (value: unknown): Compiled => {
    if (typeof value === "string") return compileString(value);
    if (typeof value !== "object" || value === null) return { k: "value", v: value };
    const isArray = Array.isArray(value);
    const keys = Object.keys(value);
    const children: Compiled[] = new Array(keys.length);
    let allStatic = true;
    for (let i = 0; i < keys.length; i++) {
      path.push(isArray ? i : keys[i]);
      children[i] = visit((value as Record<string, unknown>)[keys[i]]);
      path.pop();
      if (children[i].k !== "value") allStatic = false;
    }
    const valueOf = (c: Compiled) => (c as { v: unknown }).v;
    if (isArray) return allStatic ? { k: "value", v: children.map(valueOf) } : { k: "array", items: children };
    if (!allStatic) return { k: "object", entries: keys.map((key, i): [string, Compiled] => [key, children[i]]) };
    // fromEntries defines properties, so even a "__proto__" key from code-built params stays data.
    return { k: "value", v: Object.fromEntries(keys.map((key, i) => [key, valueOf(children[i])])) };
  };
  const render = (node: Compiled, resolveStep: StepResolver): unknown => {
    switch (node.k) {
      case "value":
        return node.v;
      case "ref":
        return resolveStep(node.ref);
      case "text":
        return node.parts.map((p) => (typeof p === "string" ? p : asText(resolveStep(p)))).join("");
      case "array":
        return node.items.map((item) => render(item, resolveStep));
      case "object":
        return Object.fromEntries(node.entries.map(([key, item]) => [key, render(item, resolveStep)]));
    }
  };
  const root = visit(params);
  return {
    refs,
    errors,
    dynamic: root.k !== "value",
    render: (resolveStep) => render(root, resolveStep) as Record<string, unknown>,
  };
}

/**
 * Follows `path` into a value using own properties only, so `__proto__`-like segments never
 * reach a prototype. Returns undefined when any step is missing.
 */
export function readPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number(segment)];
    else if (typeof current === "object" && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else return undefined;
  }
  return current;
}
