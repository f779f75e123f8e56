/**
 * The registry-free part of validating a recipe: YAML → recipe schema → compile rules, and what
 * each step's tool check needs, as plain (structured-cloneable) data. This is the costly part
 * (the YAML parse is ~2 ms per KB), so the service runs it in a worker thread (pool.ts runs
 * `prepareRecipe` by name, codec-worker.mjs loads this file); validate.ts adds the tool checks,
 * which need the registry, on the calling thread.
 */
import { deserialize, serialize } from "node:v8";
import type { z } from "zod";
import { compileRecipe, type CompileIssue, type StepSlot } from "./compile";
import { formatPath, parseRecipeYaml, type ParseLimits, type PathSegment, type YamlPositions, type YamlSource } from "./parse";
import {
  RECIPE_FIELDS,
  STEP_FIELDS,
  recipeSchema,
  recipeStepSchema,
  recipeVariablesSchema,
  stepIdFromName,
  type Recipe,
} from "./schema";
import { didYouMean } from "./suggest";
import type { RecipeIssue, VariableValue } from "./types";

export type Locate = YamlSource["locate"];

/** What the registry-free part depends on: the run-time variables and the text's limits. */
export interface PrepareOptions {
  /** Run-time values (HTTP `variables`, CLI `--var`), validated as the run would use them. */
  variables?: Record<string, unknown>;
  /** Limits for the YAML text (size, depth, aliases). */
  limits?: Partial<ParseLimits>;
}

type Issue = z.core.$ZodIssue;

/** How fromZod words its messages for one kind of mapping. */
export interface ZodContext {
  /** Known keys at a path, for "did you mean" on unknown ones. */
  known?: (path: PathSegment[]) => string[];
  /** "field" in the recipe itself, "parameter" inside params. */
  noun: string;
  /** Extra words for an issue at a path (e.g. which placeholder produced the value). */
  explain?: (path: PathSegment[]) => string;
  /** The value the issue is about (undefined: absent), for issues whose message does not say. */
  valueAt?: (path: PathSegment[]) => unknown;
}

/** Zod issues → positioned issues; unknown keys get one issue each, at the key, with a hint. */
export function fromZod(issues: readonly Issue[], base: PathSegment[], locate: Locate, context: ZodContext) {
  const out: RecipeIssue[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as PathSegment[])];
    const last = String(path[path.length - 1]);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const hint = context.known ? didYouMean(key, context.known(path)) : "";
        out.push({ path: formatPath([...path, key]), ...locate([...path, key], { key: true }), message: `unknown ${context.noun} "${key}"${hint}` });
      }
    } else if (issue.code === "invalid_key") {
      // zod says "Invalid key in record"; the key's own issue says what is wrong with it.
      const message = `invalid name "${last}": ${issue.issues[0]?.message ?? issue.message}`;
      out.push({ path: formatPath(path), ...locate(path, { key: true }), message });
    } else {
      // An absent value fails as a wrong type, or, for a list of allowed values, as none of them.
      const missing = (issue.code === "invalid_type" && / received undefined$/.test(issue.message))
        || (issue.code === "invalid_value" && context.valueAt !== undefined && context.valueAt(path) === undefined);
      const message = missing ? `required ${context.noun} "${last}" is missing`
        : issue.code === "invalid_value" && issue.message.startsWith("Invalid option") ? `expected one of ${issue.values.map(String).join(", ")}` : issue.message;
      out.push({ path: formatPath(path), ...locate(path), message: message + (context.explain?.(path) ?? "") });
    }
  }
  return out;
}

const fieldsAt = (path: PathSegment[]) => (path.length === 0 ? RECIPE_FIELDS : STEP_FIELDS);

/** Best-effort pieces of a file that does not match the schema as a whole. */
function salvage(value: unknown): { variables: Recipe["variables"]; steps: StepSlot[] } {
  const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const variables: Recipe["variables"] = {};
  if (typeof raw.variables === "object" && raw.variables !== null) {
    for (const [name, v] of Object.entries(raw.variables)) {
      const one = recipeVariablesSchema.safeParse({ [name]: v });
      if (one.success) Object.assign(variables, one.data);
    }
  }
  const steps = (Array.isArray(raw.steps) ? raw.steps : []).map((step): StepSlot => {
    const parsed = recipeStepSchema.safeParse(step);
    if (parsed.success) return parsed.data;
    // Keep the id of a broken step so later references to it are not reported as well.
    const s = (typeof step === "object" && step !== null ? step : {}) as Record<string, unknown>;
    const id = typeof s.id === "string" ? s.id : typeof s.name === "string" ? stepIdFromName(s.name) : undefined;
    return { id, invalid: true };
  });
  return { variables, steps };
}

/**
 * What one step's tool check needs, as plain data: the params rendered with the run-time
 * variables (values from step results left undefined), the param paths whose schema issues are
 * skipped, and the exact `{{ var }}` placeholders by param path (for "the value comes from").
 */
export interface StepToCheck {
  index: number;
  tool: string;
  params: Record<string, unknown>;
  skip: PathSegment[][];
  fromVariable: [path: string, name: string][];
}

/**
 * Everything validation needs of a recipe text apart from the tool registry, as plain
 * (structured-cloneable) data: the YAML, schema and compile issues, the steps to check against
 * their tools, and the positions to locate those issues. A worker thread computes it for the
 * service (server/tools/recipe-catalogue.ts); checkTools then needs only the registry.
 */
export interface PreparedRecipe {
  errors: List<RecipeIssue>;
  warnings: List<RecipeIssue>;
  /** The YAML did not parse: nothing else was checked. */
  broken: boolean;
  recipe?: Recipe;
  transaction: boolean;
  variables: Record<string, VariableValue>;
  steps: List<StepToCheck>;
  positions: YamlPositions;
  /** The declared name, description and number of steps, read even from an invalid file (listings). */
  head: RecipeHead;
}

/**
 * A list as computed in-process, or as a worker sends it (packPrepared): v8-serialized chunks
 * that the event loop reads one at a time between other work, where receiving 10,000 steps as
 * objects blocked it for 10-30 ms.
 */
export type List<T> = T[] | { chunks: Uint8Array[] };

const CHUNK = 200;

function pack<T>(list: List<T>): List<T> {
  if (!Array.isArray(list)) return list;
  const chunks: Uint8Array[] = [];
  // A copy of exactly the bytes, so that posting it does not copy a larger pooled buffer.
  for (let i = 0; i < list.length; i += CHUNK) chunks.push(new Uint8Array(serialize(list.slice(i, i + CHUNK))));
  return { chunks };
}

/** The items of a List, a chunk at a time. */
export function* listItemsLazily<T>(list: List<T>): Generator<T> {
  if (Array.isArray(list)) yield* list;
  else for (const chunk of list.chunks) yield* deserialize(chunk) as T[];
}

/** The items of a List, all at once (for short lists, such as the errors of a broken text). */
export const listItems = <T>(list: List<T>): T[] => [...listItemsLazily(list)];

/** A PreparedRecipe ready to post from a worker thread: its lists in chunks (see List). */
export function packPrepared(prepared: PreparedRecipe): PreparedRecipe {
  return { ...prepared, errors: pack(prepared.errors), warnings: pack(prepared.warnings), steps: pack(prepared.steps) };
}

/** What a listing shows of a file whatever its validity (store.ts). */
export interface RecipeHead {
  /** As written (any YAML value), so messages can show what a file declares instead. */
  name?: unknown;
  description?: string;
  steps: number;
}

/** Computes a PreparedRecipe (in-process, or in a worker thread; see validate.ts, ValidateOptions.prepare). */
export type PrepareRecipe = (text: string, options: PrepareOptions) => Promise<PreparedRecipe>;

function headOf(value: unknown): RecipeHead {
  const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  return {
    ...(raw.name !== undefined ? { name: raw.name } : {}),
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    steps: Array.isArray(raw.steps) ? raw.steps.length : 0,
  };
}

/** YAML → schema → compile rules, and what each step's tool check needs. Never throws on bad input. */
export function prepareRecipe(text: string, options: PrepareOptions = {}): PreparedRecipe {
  const source = parseRecipeYaml(text, options.limits);
  const head = headOf(source.value);
  const nothing = { transaction: false, variables: {}, steps: [], positions: source.positions, head };
  if (source.errors.length > 0) return { ...nothing, errors: source.errors, warnings: source.warnings, broken: true };

  const errors: RecipeIssue[] = [];
  const warnings: RecipeIssue[] = [...source.warnings];
  const parsed = recipeSchema.safeParse(source.value);
  if (!parsed.success) errors.push(...fromZod(parsed.error.issues, [], source.locate, { known: fieldsAt, noun: "field" }));
  const recipe = parsed.success ? parsed.data : undefined;
  const pieces = recipe ?? salvage(source.value);

  const position = (issue: CompileIssue): RecipeIssue => ({
    path: formatPath(issue.path),
    ...source.locate(issue.path, { key: issue.key, offset: issue.offset }),
    message: issue.message,
  });
  const compiled = compileRecipe(pieces, options.variables);
  errors.push(...compiled.errors.map(position));
  warnings.push(...compiled.warnings.map(position));

  const steps = compiled.plan.steps.map(({ index, step, params }): StepToCheck => {
    // Values from step results are unknown until run time, and template errors are already
    // reported: skip schema issues at or under those paths rather than invent false errors.
    const unknownAt = params.refs.filter((use) => use.ref.kind === "step").map((use) => use.path);
    const templateErrorAt = compiled.errors.filter((e) => e.path[1] === index && e.path[2] === "params").map((e) => e.path.slice(3));
    const fromVariable = params.refs.flatMap((use): [string, string][] =>
      use.exact && use.ref.kind === "var" ? [[formatPath(use.path), use.ref.name]] : [],
    );
    return { index, tool: step.tool, params: params.render(() => undefined), skip: [...unknownAt, ...templateErrorAt], fromVariable };
  });
  return {
    errors, warnings, broken: false, ...(recipe ? { recipe } : {}), transaction: recipe?.transaction ?? false,
    variables: compiled.plan.variables, steps, positions: source.positions, head,
  };
}
