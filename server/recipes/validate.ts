/**
 * validateRecipe: every problem of a recipe text in one answer, each with path, line and column.
 * Order of checks: YAML (stops here: a broken document has no reliable structure) → recipe
 * schema → compile rules (variables, step references, conditions) → tools and their params.
 * A broken part never hides problems elsewhere: the variables and each step are also checked on
 * their own when the file as a whole does not match the schema.
 */
import type { z } from "zod";
import { formatPath, locator, type PathSegment } from "./parse";
import {
  fromZod,
  listItemsLazily,
  prepareRecipe,
  type Locate,
  type PrepareOptions,
  type PrepareRecipe,
  type PreparedRecipe,
  type RecipeHead,
  type StepToCheck,
} from "./prepare";
import type { Recipe } from "./schema";
import { didYouMean } from "./suggest";
import type { RecipeIssue, RecipeToolCatalogue } from "./types";

/** Options of validateRecipe. */
export interface ValidateOptions extends PrepareOptions {
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
  const valueAt = (path: PathSegment[]) => path.slice(3).reduce<unknown>((v, key) => (v !== null && typeof v === "object" ? (v as Record<PathSegment, unknown>)[key] : undefined), step.params);
  errors.push(...fromZod(relevant, ["steps", step.index, "params"], locate, { known, noun: "parameter", explain, valueAt }));
}

/**
 * The registry part of validation: each step's tool and params, one step per iteration, so an
 * async caller can yield to the event loop between steps. Then the answer, sorted by position.
 */
function* checkTools(prepared: PreparedRecipe, catalogue: RecipeToolCatalogue): Generator<void, RecipeValidation> {
  const errors: RecipeIssue[] = [];
  const warnings: RecipeIssue[] = [];
  for (const issue of listItemsLazily(prepared.errors)) yield void errors.push(issue);
  for (const issue of listItemsLazily(prepared.warnings)) yield void warnings.push(issue);
  if (prepared.broken) return { valid: false, errors, warnings };
  const locate = locator(prepared.positions);
  for (const step of listItemsLazily(prepared.steps)) {
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
