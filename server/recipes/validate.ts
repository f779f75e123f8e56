/**
 * validateRecipe: every problem of a recipe text in one answer, each with path, line and column.
 * Order of checks: YAML (stops here: a broken document has no reliable structure) → recipe
 * schema → compile rules (variables, step references, conditions) → tools and their params.
 * A broken part never hides problems elsewhere: the variables and each step are also checked on
 * their own when the file as a whole does not match the schema.
 */
import { deserialize, serialize } from "node:v8";
import type { z } from "zod";
import { compileRecipe, type CompileIssue, type StepSlot } from "./compile";
import { formatPath, locator, parseRecipeYaml, type ParseLimits, type PathSegment, type YamlPositions, type YamlSource } from "./parse";
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
import type { RecipeIssue, RecipeToolCatalogue, VariableValue } from "./types";

type Locate = YamlSource["locate"];

/** Options of validateRecipe. */
export interface ValidateOptions {
  /** Run-time values (HTTP `variables`, CLI `--var`), validated as the run would use them. */
  variables?: Record<string, unknown>;
  /** Limits for the YAML text (size, depth, aliases). */
  limits?: Partial<ParseLimits>;
  /** validateRecipeAsync: where the registry-free part runs (the service: a worker thread). */
  prepare?: PrepareRecipe;
}

/** The answer of validate_recipe. */
export interface RecipeValidation {
  valid: boolean;
  errors: RecipeIssue[];
  warnings: RecipeIssue[];
  /** The parsed recipe whenever its structure is valid (even if other checks failed). */
  recipe?: Recipe;
}

/** Tools that would clash with the transaction a `transaction: true` recipe runs in. */
const TRANSACTION_TOOLS = new Set(["begin_transaction", "commit_transaction", "rollback_transaction"]);

type Issue = z.core.$ZodIssue;

/** How fromZod words its messages for one kind of mapping. */
interface ZodContext {
  /** Known keys at a path, for "did you mean" on unknown ones. */
  known?: (path: PathSegment[]) => string[];
  /** "field" in the recipe itself, "parameter" inside params. */
  noun: string;
  /** Extra words for an issue at a path (e.g. which placeholder produced the value). */
  explain?: (path: PathSegment[]) => string;
}

/** Zod issues → positioned issues; unknown keys get one issue each, at the key, with a hint. */
function fromZod(issues: readonly Issue[], base: PathSegment[], locate: Locate, context: ZodContext) {
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
      const missing = issue.code === "invalid_type" && / received undefined$/.test(issue.message);
      const message = missing ? `required ${context.noun} "${last}" is missing` : issue.message;
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

function* each<T>(list: List<T>): Generator<T> {
  if (Array.isArray(list)) yield* list;
  else for (const chunk of list.chunks) yield* deserialize(chunk) as T[];
}

/** The items of a List, all at once (for short lists, such as the errors of a broken text). */
export const listItems = <T>(list: List<T>): T[] => [...each(list)];

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

/** Computes a PreparedRecipe (in-process, or in a worker thread; see ValidateOptions.prepare). */
export type PrepareRecipe = (text: string, options: Pick<ValidateOptions, "variables" | "limits">) => Promise<PreparedRecipe>;

function headOf(value: unknown): RecipeHead {
  const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  return {
    ...(raw.name !== undefined ? { name: raw.name } : {}),
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
    steps: Array.isArray(raw.steps) ? raw.steps.length : 0,
  };
}

/**
 * The registry-free part of validation: YAML → schema → compile rules, and what each step's
 * tool check needs. Never throws on bad input. This is the costly part (the YAML parse is ~2 ms
 * per KB), so the service runs it in a worker thread.
 */
export function prepareRecipe(text: string, options: Pick<ValidateOptions, "variables" | "limits"> = {}): PreparedRecipe {
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

/** The tool of one step exists, fits the recipe, and accepts the step's params. */
function checkStep(step: StepToCheck, prepared: PreparedRecipe, catalogue: RecipeToolCatalogue, locate: Locate, errors: RecipeIssue[], warnings: RecipeIssue[]) {
  const toolPath = ["steps", step.index, "tool"];
  const at = (message: string): RecipeIssue => ({ path: formatPath(toolPath), ...locate(toolPath), message });
  const tool = catalogue.getTool(step.tool);
  if (!tool) {
    errors.push(at(`unknown tool "${step.tool}"${didYouMean(step.tool, catalogue.toolNames())}`));
    return;
  }
  if (prepared.transaction && TRANSACTION_TOOLS.has(tool.name)) {
    errors.push(at(`${tool.name} cannot be a step of a recipe with transaction: true; the run already manages the transaction`));
  }
  if (tool.group === "recipes") {
    warnings.push(at(`${tool.name} runs recipe machinery from inside a recipe; a recipe that runs itself never ends`));
  }
  let result: ReturnType<z.ZodType["safeParse"]>;
  try {
    result = tool.input.safeParse(step.params);
  } catch (error) {
    // An async refinement or a throwing transform in a tool schema must not break validation.
    warnings.push(at(`the params of ${tool.name} could not be checked: ${(error as Error).message}`));
    return;
  }
  if (result.success) return;
  const relevant = result.error.issues.filter((issue) => !step.skip.some((p) => p.every((seg, i) => issue.path[i] === seg)));
  const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
  const known = (path: PathSegment[]) => (path.length === 3 && shape ? Object.keys(shape) : []);
  // A wrong type that came from an exact `{{ var }}` says so: the YAML alone does not show it.
  const explain = (path: PathSegment[]) => {
    const at = formatPath(path.slice(3));
    const name = step.fromVariable.find(([p]) => p === at)?.[1];
    return name === undefined ? "" : ` (the value comes from {{ ${name} }}, which is ${JSON.stringify(prepared.variables[name])})`;
  };
  errors.push(...fromZod(relevant, ["steps", step.index, "params"], locate, { known, noun: "parameter", explain }));
}

/**
 * The registry part of validation: each step's tool and params, one step per iteration, so an
 * async caller can yield to the event loop between steps. Then the answer, sorted by position.
 */
function* checkTools(prepared: PreparedRecipe, catalogue: RecipeToolCatalogue): Generator<void, RecipeValidation> {
  const errors: RecipeIssue[] = [];
  const warnings: RecipeIssue[] = [];
  for (const issue of each(prepared.errors)) yield void errors.push(issue);
  for (const issue of each(prepared.warnings)) yield void warnings.push(issue);
  if (prepared.broken) return { valid: false, errors, warnings };
  const locate = locator(prepared.positions);
  for (const step of each(prepared.steps)) {
    checkStep(step, prepared, catalogue, locate, errors, warnings);
    yield;
  }
  const unique = (list: RecipeIssue[], seen = new Set<string>()) =>
    list
      .filter((issue) => {
        const key = `${issue.path}\u0000${issue.message}`;
        return seen.has(key) ? false : (seen.add(key), true);
      })
      .sort((a, b) => a.line - b.line || a.column - b.column);
  const allErrors = unique(errors);
  const { recipe } = prepared;
  return { valid: allErrors.length === 0, errors: allErrors, warnings: unique(warnings), ...(recipe ? { recipe } : {}) };
}

/** Runs checkTools to the end at once. */
function checkToolsNow(prepared: PreparedRecipe, catalogue: RecipeToolCatalogue): RecipeValidation {
  const run = checkTools(prepared, catalogue);
  for (;;) {
    const next = run.next();
    if (next.done) return next.value;
  }
}

/** Longest stretch of checkTools between two turns of the event loop. */
const SLICE_MS = 8;

/** Runs checkTools in slices of at most ~SLICE_MS, yielding to the event loop (other clients) between them. */
async function checkToolsInSlices(prepared: PreparedRecipe, catalogue: RecipeToolCatalogue): Promise<RecipeValidation> {
  const run = checkTools(prepared, catalogue);
  let sliceStart = performance.now();
  for (;;) {
    const next = run.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/**
 * Validates recipe text against the schema and the tool catalogue, for the given run-time
 * variables, on the calling thread. Never throws on bad input. Results for texts of 4 KiB and
 * more are memoised (32 most recent) and shared between callers: treat them as read-only.
 * The service uses validateRecipeAsync, which does the costly part in a worker.
 * @example
 * const { valid, errors } = validateRecipe(yamlText, catalogue, { variables: { n: 3 } });
 */
export function validateRecipe(text: string, catalogue: RecipeToolCatalogue, options: ValidateOptions = {}): RecipeValidation {
  if (typeof text !== "string" || text.length < MEMO_MIN_CHARS) return checkToolsNow(prepareRecipe(text, options), catalogue);
  const memo = memoOf(catalogue);
  const key = memoKey(text, options);
  const hit = memo.get(key);
  if (hit?.done) return touch(memo, key, hit).done!.validation;
  const prepared = prepareRecipe(text, options);
  const done = { validation: checkToolsNow(prepared, catalogue), head: prepared.head };
  remember(memo, key, { done });
  return done.validation;
}

/**
 * validateRecipe with the costly part (YAML, schema, compile) done by `options.prepare` (a
 * worker thread in the service; in-process when absent) and the tool checks in slices that
 * yield to the event loop. Same results as validateRecipe. Concurrent calls for one text share
 * one preparation. Rejects only when `prepare` does (e.g. 503 BUSY from the worker pool).
 */
export async function validateRecipeAsync(text: string, catalogue: RecipeToolCatalogue, options: ValidateOptions = {}): Promise<RecipeValidation> {
  return (await validateWithHead(text, catalogue, options)).validation;
}

/** validateRecipeAsync, plus the file's declared name, description and step count (for listings). */
export async function validateWithHead(
  text: string,
  catalogue: RecipeToolCatalogue,
  options: ValidateOptions = {},
): Promise<{ validation: RecipeValidation; head: RecipeHead }> {
  const prepare = options.prepare ?? (async (t, o) => prepareRecipe(t, o));
  const run = async () => {
    const prepared = await prepare(text, { variables: options.variables, limits: options.limits });
    return { validation: await checkToolsInSlices(prepared, catalogue), head: prepared.head };
  };
  if (typeof text !== "string" || text.length < MEMO_MIN_CHARS) return run();
  const memo = memoOf(catalogue);
  const key = memoKey(text, options);
  const hit = memo.get(key);
  if (hit) return touch(memo, key, hit).done ?? hit.pending!;
  const pending = run();
  const entry: MemoEntry = { pending };
  remember(memo, key, entry);
  try {
    entry.done = await pending;
    delete entry.pending;
    return entry.done;
  } catch (error) {
    // A refused or failed preparation is not a result: the next call tries again.
    if (memo.get(key) === entry) memo.delete(key);
    throw error;
  }
}

/** Texts shorter than this validate in well under a millisecond; only longer ones are memoised. */
const MEMO_MIN_CHARS = 4096;
const MEMO_ENTRIES = 32;
/** A memoised validation, or one under way (shared by concurrent callers). */
interface MemoEntry {
  done?: { validation: RecipeValidation; head: RecipeHead };
  pending?: Promise<{ validation: RecipeValidation; head: RecipeHead }>;
}
/** Per catalogue (a validation depends on the tools' schemas): text + options → validation, LRU. */
const memos = new WeakMap<RecipeToolCatalogue, Map<string, MemoEntry>>();
const memoOf = (catalogue: RecipeToolCatalogue) => memos.get(catalogue) ?? memos.set(catalogue, new Map()).get(catalogue)!;
const memoKey = (text: string, options: ValidateOptions) =>
  `${JSON.stringify(options.variables ?? null)}\u0000${JSON.stringify(options.limits ?? null)}\u0000${text}`;
function touch(memo: Map<string, MemoEntry>, key: string, entry: MemoEntry): MemoEntry {
  memo.delete(key);
  memo.set(key, entry);
  return entry;
}
function remember(memo: Map<string, MemoEntry>, key: string, entry: MemoEntry): void {
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
  memo.set(key, entry);
}
