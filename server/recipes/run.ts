/**
 * runRecipe: executes a validated recipe through an `invoke` seam. Invariants:
 * - the recipe is compiled once per run (templates, conditions, variables); a recipe that does
 *   not compile throws RecipeCompileError before any tool is called;
 * - steps run strictly in order; every step appears in the result exactly once;
 * - a step fails when its condition errors, a placeholder cannot be filled, or the tool throws;
 *   `on_error: stop` then ends the run and the remaining steps are reported as skipped with
 *   reason "not run: an earlier step failed"; `continue` records the failure and goes on;
 * - as GitHub Actions' continue-on-error: the run fails only when a `stop` step failed (or it
 *   was interrupted, or its transaction did not commit); a failed `continue` step is reported
 *   failed and counted in `failed_steps`, and the run still succeeds;
 * - once `signal` is aborted, no further step starts: they are skipped and the run fails;
 * - `transaction: true` wraps the steps in begin_transaction, then commit_transaction when the
 *   run succeeded, rollback_transaction otherwise (called through the same `invoke`);
 * - progress events are observational: a throwing `onStep` listener cannot break the run;
 * - a step whose tool switched an app's active scene (its result says `switched_from`) is listed
 *   in the run's `active_scene_changes` (active-scene.ts).
 */
import { parse as parseYamlValue } from "yaml";
import { activeSceneChange, type ActiveSceneChange } from "./active-scene";
import { compileRecipe, type CompiledStep } from "./compile";
import { formatPath } from "./parse";
import { toCelValue, type ConditionScope } from "./condition";
import { isVariableName, type Recipe } from "./schema";
import { TemplateError, readPath, refText, type StepResolver } from "./template";
import type { InvokeTool, RecipeRun, RunEvent, RunTransaction, StepError, StepRecord, VariableValue } from "./types";

/** Options of runRecipe. */
export interface RunOptions {
  /** Run-time values that override the recipe's defaults. */
  variables?: Record<string, unknown>;
  invoke: InvokeTool;
  /** Called as each step starts (tool about to be called) and finishes (every step, once). */
  onStep?: (event: RunEvent) => void;
  /** Clock in milliseconds; defaults to performance.now(). */
  now?: () => number;
  /** Once aborted, the steps not yet started are skipped and the run fails (Ctrl-C, cancel). */
  signal?: AbortSignal;
}

/** The recipe (with these variables) does not compile; no step was run. */
export class RecipeCompileError extends Error {
  readonly code = "INVALID_RECIPE";
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`the recipe is invalid: ${issues.map((i) => `${i.path || "(root)"}: ${i.message}`).join("; ")}`);
    this.name = "RecipeCompileError";
  }
}

const STOPPED = "not run: an earlier step failed";
const NO_TRANSACTION = "not run: the transaction could not begin";
const INTERRUPTED = "not run: the run was interrupted";
const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** A thrown value → the `{code, message, details?}` recorded for the step. */
export function toStepError(thrown: unknown, fallbackCode = "TOOL_FAILED"): StepError {
  const e = (typeof thrown === "object" && thrown !== null ? thrown : {}) as { code?: unknown; message?: unknown; details?: unknown };
  const code = typeof e.code === "string" && e.code !== "" ? e.code : fallbackCode;
  const message =
    typeof e.message === "string" && e.message !== "" ? e.message : typeof thrown === "string" ? thrown : "the tool failed without a message";
  return e.details === undefined ? { code, message } : { code, message, details: e.details };
}

/**
 * Runs a recipe. Validate it first (validateRecipe) to give users positioned errors; this
 * function only re-checks what it needs and throws RecipeCompileError when that fails.
 * @example
 * const run = await runRecipe(recipe, { variables: { n: 3 }, invoke: (tool, params) => call(tool, params) });
 * if (run.status === "failed") process.exitCode = 1;
 */
export async function runRecipe(recipe: Recipe, options: RunOptions): Promise<RecipeRun> {
  const { plan, errors } = compileRecipe(recipe, options.variables);
  if (errors.length > 0) throw new RecipeCompileError(errors.map((e) => ({ path: formatPath(e.path), message: e.message })));
  const { invoke } = options;
  const now = options.now ?? (() => performance.now());
  const emit = (event: RunEvent) => {
    try {
      options.onStep?.(event);
    } catch {
      // A broken listener (say, a closed event stream) must not abort a half-done run.
    }
  };
  const started = now();
  const byId = new Map<string, StepRecord>();
  const scope: ConditionScope = { vars: toCelValue(plan.variables) as ConditionScope["vars"], steps: Object.create(null) };
  if (plan.conditionsReadSteps) {
    for (const { step } of plan.steps) scope.steps[step.id] = { status: "pending", result: null, error: null };
  }
  const resolveStep: StepResolver = (ref) => {
    const record = byId.get(ref.id);
    const written = `{{ ${refText(ref)} }}`;
    if (!record) throw new TemplateError(`${written}: step "${ref.id}" has not run`);
    if (ref.field === "status") return record.status;
    const expected = ref.field === "result" ? "succeeded" : "failed";
    if (record.status !== expected) throw new TemplateError(`${written}: step "${ref.id}" ${record.status}, so it has no ${ref.field}`);
    const value = readPath(record[ref.field], ref.path);
    if (value === undefined) throw new TemplateError(`${written}: the ${ref.field} of step "${ref.id}" has no value there`);
    return value;
  };

  let transaction: RunTransaction | undefined;
  let stopReason: string | undefined;
  if (recipe.transaction) {
    try {
      await invoke("begin_transaction", { name: `recipe ${recipe.name}` });
    } catch (error) {
      transaction = { outcome: "not_started", error: toStepError(error) };
      stopReason = NO_TRANSACTION;
    }
  }

  const records: StepRecord[] = [];
  const sceneChanges: ActiveSceneChange[] = [];
  let failed = stopReason !== undefined;
  for (const compiled of plan.steps) {
    if (!stopReason && options.signal?.aborted) {
      stopReason = INTERRUPTED;
      failed = true;
    }
    const record = stopReason ? skipped(compiled, stopReason, 0) : await runStep(compiled, invoke, resolveStep, scope, now, emit);
    records.push(record);
    byId.set(record.id, record);
    const sceneChange = activeSceneChange(compiled.index, record);
    if (sceneChange) sceneChanges.push(sceneChange);
    if (plan.conditionsReadSteps) {
      scope.steps[record.id] = { status: record.status, result: toCelValue(record.result), error: toCelValue(record.error) };
    }
    emit({ type: "step_finished", index: compiled.index, step: record });
    if (record.status === "failed" && compiled.step.on_error === "stop") {
      failed = true;
      stopReason ??= STOPPED;
    }
  }

  if (recipe.transaction && !transaction) transaction = await endTransaction(invoke, failed);
  if (transaction && transaction.outcome !== "committed") failed = true;
  return {
    recipe: recipe.name,
    status: failed ? "failed" : "succeeded",
    variables: plan.variables,
    steps: records,
    failed_steps: records.filter((r) => r.status === "failed").length,
    active_scene_changes: sceneChanges,
    ...(transaction ? { transaction } : {}),
    duration_ms: round(now() - started),
  };
}

function skipped({ step }: CompiledStep, reason: string, duration: number): StepRecord {
  return { id: step.id, name: step.name, tool: step.tool, status: "skipped", reason, duration_ms: round(duration) };
}

async function runStep(
  compiled: CompiledStep,
  invoke: InvokeTool,
  resolveStep: StepResolver,
  scope: ConditionScope,
  now: () => number,
  emit: (event: RunEvent) => void,
): Promise<StepRecord> {
  const { step, index } = compiled;
  const base = { id: step.id, name: step.name, tool: step.tool };
  const started = now();
  // The params the tool was called with (placeholders filled), kept with the outcome: a run
  // shows what each step was given as well as what it gave back.
  let params: Record<string, unknown> | undefined;
  try {
    if (compiled.condition && !compiled.condition.evaluate(scope)) return skipped(compiled, "condition was false", now() - started);
    params = compiled.params.render(resolveStep);
    emit({ type: "step_started", index, step: base });
    const result = await invoke(step.tool, params);
    return { ...base, status: "succeeded", params, result, duration_ms: round(now() - started) };
  } catch (error) {
    return { ...base, status: "failed", ...(params ? { params } : {}), error: toStepError(error), duration_ms: round(now() - started) };
  }
}

async function endTransaction(invoke: InvokeTool, failed: boolean): Promise<RunTransaction> {
  try {
    await invoke(failed ? "rollback_transaction" : "commit_transaction", {});
    return { outcome: failed ? "rolled_back" : "committed" };
  } catch (error) {
    return { outcome: failed ? "rollback_failed" : "commit_failed", error: toStepError(error) };
  }
}

/**
 * Parses a CLI `--var name=value`; the value is read as a YAML scalar, so `n=100` gives the
 * number 100, `flag=true` a boolean and `title=My scene` a string. Quote to force text:
 * `--var "code='007'"`. Anything that is not a scalar (lists, maps, null) stays the raw text.
 * Throws an Error with a usage message on a malformed assignment.
 * @example parseVarAssignment("n=100") // { name: "n", value: 100 }
 */
export function parseVarAssignment(assignment: string): { name: string; value: VariableValue } {
  const eq = assignment.indexOf("=");
  const name = eq === -1 ? "" : assignment.slice(0, eq).trim();
  if (!isVariableName(name)) {
    throw new Error(`--var expects name=value with a name of letters, digits and _; got "${assignment}"`);
  }
  const raw = assignment.slice(eq + 1);
  let value: unknown;
  try {
    value = parseYamlValue(raw, { maxAliasCount: 0, logLevel: "error" });
  } catch {
    value = raw;
  }
  const scalar = typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
  return { name, value: scalar ? (value as VariableValue) : raw };
}
