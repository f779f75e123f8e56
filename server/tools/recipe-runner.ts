/**
 * Runs a validated recipe against a Kiln and records the run (RecipeRun). Shared by run_recipe
 * and `kiln --run-recipe` in-process. Invariants:
 * - every step calls its tool through the tool's tRPC procedure (callTool), so a step gets the
 *   same validation as an HTTP call, and a step's error is the HTTP error body {code, message,
 *   details} (the envelope's mapping, status aside);
 * - a step naming a tool that does not exist fails with UNKNOWN_TOOL (also the transaction
 *   tools of `transaction: true` when this Kiln has none), never with an internal error;
 * - a step that runs a recipe (run_recipe) fails with RECIPE_FAILED when that run failed, so
 *   on_error and conditions treat a failed sub-recipe like any failed step;
 * - recipes that run recipes are cut off at MAX_DEPTH nested runs, so a recipe that runs itself
 *   fails instead of recursing until memory runs out.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { KilnError, invalid } from "../errors";
import { RecipeCompileError, runRecipe, toStepError, type InvokeTool, type Recipe, type RecipeRun, type RunEvent } from "../recipes";
import type { Kiln } from "../runtime";
import { RunRecorder, discardRun } from "./recipe-runs";
import { findTool } from "./index";
import { withSource } from "../events/source";

const MAX_DEPTH = 8;
const depth = new AsyncLocalStorage<number>();

/**
 * Where the recipe came from, as recorded with the run: a project or user recipe run by name,
 * `kiln --run-recipe` (in-process or through a service), or YAML text sent to run_recipe.
 */
export type RunSource = "project" | "user" | "cli" | "inline";

/** Options of executeRecipe. */
export interface ExecuteOptions {
  variables?: Record<string, unknown>;
  source: RunSource;
  path?: string;
  /** Progress events (the CLI prints a line per finished step). */
  onStep?: (event: RunEvent) => void;
  /** Once aborted, the steps not yet started are skipped and the run fails (the CLI's Ctrl-C). */
  signal?: AbortSignal;
}

/** A recorded run: the engine's result plus the id of its RecipeRun row. */
export type RecordedRun = { run_id: string } & RecipeRun;

/** A run that has started: its id at once, its result when it ends. */
export interface StartedRun { run_id: string; variables: Record<string, unknown>; done: Promise<RecordedRun> }

// Runs in progress in this process, by id, so cancel_recipe_run can stop them. On globalThis
// because Next.js may load this module once per route bundle (a run started through tRPC must
// be cancellable through /tools).
const ACTIVE = Symbol.for("kiln.recipe-runs.active");
const active: Map<string, AbortController> = ((globalThis as { [ACTIVE]?: Map<string, AbortController> })[ACTIVE] ??= new Map());

/**
 * Asks a run of this process to stop: the step in progress finishes, the rest are skipped and
 * the run fails. False when no such run is in progress here.
 */
export function cancelRun(id: string): boolean {
  const controller = active.get(id);
  if (!controller) return false;
  controller.abort();
  return true;
}

const TRANSACTION_TOOLS = new Set(["begin_transaction", "commit_transaction", "rollback_transaction"]);

function unknownTool(tool: string): KilnError {
  const why = TRANSACTION_TOOLS.has(tool)
    ? `; this Kiln has no transaction tools, so a recipe with transaction: true cannot run here`
    : "";
  return new KilnError("UNKNOWN_TOOL", `There is no tool named "${tool}"${why}.`, 404);
}

/** The id of the transaction a begin_transaction result names, whatever its exact shape. */
function transactionIdOf(result: unknown): string | null {
  const r = (result ?? {}) as { id?: unknown; transaction_id?: unknown; transaction?: { id?: unknown } };
  const id = r.transaction?.id ?? r.transaction_id ?? r.id;
  return typeof id === "string" ? id : null;
}

/**
 * Runs `recipe` (already validated with these variables) step by step through the registry and
 * records the run. Throws KilnError INVALID_RECIPE if it does not compile after all (nothing
 * is run or recorded then) and RECIPE_TOO_DEEP past MAX_DEPTH nested runs.
 * @example
 * const run = await executeRecipe(kiln, recipe, { source: "project", path, variables: { n: 3 } });
 */
export async function executeRecipe(kiln: Kiln, recipe: Recipe, options: ExecuteOptions): Promise<RecordedRun> {
  return (await startRecipe(kiln, recipe, options)).done;
}

/**
 * Starts a run as executeRecipe does and answers once its RecipeRun row exists (status
 * running), so a client can follow it with get_recipe_run; `done` settles when it ends.
 */
export async function startRecipe(kiln: Kiln, recipe: Recipe, options: ExecuteOptions): Promise<StartedRun> {
  const level = (depth.getStore() ?? 0) + 1;
  if (level > MAX_DEPTH) {
    throw new KilnError("RECIPE_TOO_DEEP", `Recipes that run recipes may nest ${MAX_DEPTH} deep; "${recipe.name}" would be run number ${level}.`, 409);
  }
  // Imported here: the tRPC router imports the registry, which imports this module.
  const { callTool } = await import("../api/trpc");
  const { toErrorBody } = await import("../api/envelope");
  let transactionId: string | null = null;
  const invoke: InvokeTool = async (tool, params) => {
    if (!findTool(tool)) throw unknownTool(tool);
    let result: unknown;
    try {
      result = await withSource("recipe", () => callTool({ kiln }, tool, params));
    } catch (error) {
      throw toErrorBody(error).error;
    }
    if (tool === "begin_transaction") transactionId = transactionIdOf(result);
    const nested = result as { run_id?: string; recipe?: string; status?: string };
    if (tool === "run_recipe" && nested.status === "failed") {
      throw new KilnError("RECIPE_FAILED", `The recipe "${nested.recipe}" ran and failed (run ${nested.run_id}).`, 409, { run_id: nested.run_id });
    }
    return result;
  };

  const variables = { ...recipe.variables, ...options.variables };
  const recorder = await RunRecorder.start(kiln.db, {
    id: randomUUID(), recipe: recipe.name, source: options.source, path: options.path, variables,
  });
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  if (options.signal?.aborted) controller.abort();
  active.set(recorder.id, controller);
  const done = depth.run(level, () => finishRun(kiln, recipe, options, recorder, invoke, controller.signal, () => transactionId))
    .finally(() => active.delete(recorder.id));
  return { run_id: recorder.id, variables, done };
}

async function finishRun(
  kiln: Kiln, recipe: Recipe, options: ExecuteOptions, recorder: RunRecorder, invoke: InvokeTool, signal: AbortSignal,
  transactionId: () => string | null,
): Promise<RecordedRun> {
  let run: RecipeRun;
  try {
    run = await kiln.workspace.deferDurability(() =>
      runRecipe(recipe, {
        variables: options.variables,
        invoke,
        signal,
        onStep: (event) => {
          if (event.type === "step_finished") recorder.step(event.step);
          else recorder.started({ index: event.index, id: event.step.id, name: event.step.name, tool: event.step.tool });
          options.onStep?.(event);
        },
      }),
    );
  } catch (error) {
    // By name, not instanceof: a bundle may hold two copies of the engine module.
    if (error instanceof RecipeCompileError || (error as Error)?.name === "RecipeCompileError") {
      await discardRun(kiln.db, recorder.id);
      const { issues } = error as RecipeCompileError;
      throw invalid("INVALID_RECIPE", `The recipe "${recipe.name}" is invalid: ${issues.map((i) => i.message).join("; ")}`, { errors: issues });
    }
    await recorder.abort(toStepError(error, "RUN_FAILED")).catch(() => undefined);
    throw error;
  }
  await recorder.finish(run, transactionId());
  return { run_id: recorder.id, ...run };
}
