/**
 * Shared types of the recipe engine: the seams to the tool registry (catalogue, invoke) and the
 * shapes of issues, runs and progress events that the HTTP tools and the CLI hand to clients.
 */
import type { z } from "zod";
import type { ActiveSceneChange } from "./active-scene";

/** The part of the tool registry the recipe engine needs: look a tool up, list the names. */
export interface RecipeToolCatalogue {
  getTool(name: string): { name: string; group: string; input: z.ZodType } | undefined;
  toolNames(): string[];
}

/**
 * Calls one tool. Throws on failure; the thrown error may carry `code` (string), `message` and
 * `details`, which the run records as the step's error.
 */
export type InvokeTool = (tool: string, params: Record<string, unknown>) => Promise<unknown>;

/** A value a recipe variable may hold (YAML defaults and run-time overrides alike). */
export type VariableValue = string | number | boolean;

/** One problem (or warning) found in a recipe, pointing at the YAML source (1-based line/column). */
export interface RecipeIssue {
  /** Where in the document, e.g. `steps[2].params.position.x`; "" for the whole document. */
  path: string;
  line: number;
  column: number;
  message: string;
}

/** A step's failure as recorded in a run; the same shape as the HTTP error body. */
export interface StepError {
  code: string;
  message: string;
  details?: unknown;
}

/** Outcome of one step in a run. */
export interface StepRecord {
  id: string;
  name: string;
  tool: string;
  status: "succeeded" | "failed" | "skipped";
  /** The params the tool was called with, placeholders filled (steps that called their tool). */
  params?: Record<string, unknown>;
  /** The tool's result (succeeded steps only). */
  result?: unknown;
  /** Why the step failed (failed steps only). */
  error?: StepError;
  /** Why the step was skipped (skipped steps only). */
  reason?: string;
  duration_ms: number;
}

/** What happened to the transaction of a recipe that declares `transaction: true`. */
export interface RunTransaction {
  outcome: "committed" | "rolled_back" | "not_started" | "commit_failed" | "rollback_failed";
  error?: StepError;
}

/** The result of one run of a recipe (the integrator adds `run_id`). */
export interface RecipeRun {
  recipe: string;
  /** `failed` when a step with `on_error: stop` failed, the run was interrupted, or its transaction did not commit. */
  status: "succeeded" | "failed";
  /** The effective variables: defaults overridden by run-time values. */
  variables: Record<string, VariableValue>;
  steps: StepRecord[];
  /** How many steps failed; with `on_error: continue` a run can succeed with failed steps. */
  failed_steps: number;
  /** Steps that changed an app's active scene (create_scene, open_scene), in order. */
  active_scene_changes: ActiveSceneChange[];
  transaction?: RunTransaction;
  duration_ms: number;
}

/** Progress event for streaming a run (CLI lines, UI). Skipped steps only get `step_finished`. */
export type RunEvent =
  | { type: "step_started"; index: number; step: { id: string; name: string; tool: string } }
  | { type: "step_finished"; index: number; step: StepRecord };
