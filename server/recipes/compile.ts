/**
 * Recipe + run-time variables → an executable plan, and the cross-step rules that a schema
 * cannot express. Shared by validateRecipe (which adds YAML positions) and runRecipe (which
 * refuses to start on any error), so validation and execution cannot disagree. Rules:
 * - effective variables = defaults overridden by run-time values (string, number or boolean);
 * - step ids are unique; every `{{ }}` variable and every `vars.x` in a condition is defined;
 * - placeholders and conditions refer only to EARLIER steps (a later step has no result yet).
 */
import { compileCondition, type CompiledCondition } from "./condition";
import type { PathSegment } from "./parse";
import { STEP_ID_PATTERN, isVariableName, type Recipe, type RecipeStep } from "./schema";
import { didYouMean } from "./suggest";
import { compileParams, refText, type CompiledParams } from "./template";
import type { VariableValue } from "./types";

/** A problem found while compiling, located by path (and by offset inside a condition). */
export interface CompileIssue {
  path: PathSegment[];
  message: string;
  /** Character offset inside the string at `path` (conditions). */
  offset?: number;
  /** Point at the mapping key rather than its value. */
  key?: boolean;
}

/** A step with its params and condition compiled for one run. */
export interface CompiledStep {
  index: number;
  step: RecipeStep;
  params: CompiledParams;
  condition?: CompiledCondition;
}

/** Everything a run needs, computed once. */
export interface RecipePlan {
  variables: Record<string, VariableValue>;
  steps: CompiledStep[];
  /** True when some condition reads `steps.*`, so the run must keep a CEL view of step states. */
  conditionsReadSteps: boolean;
}

/** Steps whose structure was invalid still occupy their place (and id, when known). */
export type StepSlot = RecipeStep | { id?: string; invalid: true };

/** What compileRecipe needs; validateRecipe passes best-effort pieces of a broken file. */
export interface CompilableRecipe {
  variables: Recipe["variables"];
  steps: readonly StepSlot[];
}

function duplicateIdMessage(id: string, firstIndex: number): string {
  return `duplicate step id "${id}" (steps[${firstIndex}] has it too); give one of them another id`;
}

function isVariableValue(value: unknown): value is VariableValue {
  return typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
}

/** Defaults overridden by run-time values; invalid overrides are reported, not applied. */
function mergeVariables(defaults: Recipe["variables"], overrides: Record<string, unknown>, errors: CompileIssue[]) {
  const variables: Record<string, VariableValue> = { ...defaults };
  for (const [name, value] of Object.entries(overrides)) {
    const path = ["variables", name];
    if (!isVariableName(name)) {
      errors.push({ path, message: `run-time variable "${name}" is not a valid variable name`, key: true });
    } else if (!isVariableValue(value)) {
      errors.push({ path, message: `run-time value of "${name}" must be a string, a number or a boolean`, key: true });
    } else variables[name] = value;
  }
  return variables;
}

/**
 * Compiles a recipe for run-time `overrides`. `steps` holds the compiled valid steps even when
 * `errors` is not empty (validation still checks their params); run only an error-free plan.
 * @example
 * const { plan, errors } = compileRecipe(recipe, { ground_size: 200 });
 */
export function compileRecipe(
  recipe: CompilableRecipe,
  overrides: Record<string, unknown> = {},
): { plan: RecipePlan; errors: CompileIssue[]; warnings: CompileIssue[] } {
  const errors: CompileIssue[] = [];
  const warnings: CompileIssue[] = [];
  const variables = mergeVariables(recipe.variables, overrides, errors);
  const used = new Set<string>();
  const resolveVar = (name: string) => {
    used.add(name);
    return Object.hasOwn(variables, name) ? variables[name] : undefined;
  };

  // Ids in order; a step may only read ids whose first use comes before it.
  const firstIndex = new Map<string, number>();
  recipe.steps.forEach((slot, index) => {
    if (slot.id === undefined || !STEP_ID_PATTERN.test(slot.id)) return;
    const seen = firstIndex.get(slot.id);
    if (seen === undefined) firstIndex.set(slot.id, index);
    else if (!("invalid" in slot)) {
      // Points at `id`, or at the step itself when the id came from the name.
      errors.push({ path: ["steps", index, "id"], message: duplicateIdMessage(slot.id, seen) });
    }
  });
  const checkStepRef = (id: string, index: number, path: PathSegment[], written: string, offset?: number) => {
    const at = firstIndex.get(id);
    if (at === undefined) {
      errors.push({ path, offset, message: `${written} refers to no step: there is no step with id "${id}"${didYouMean(id, firstIndex.keys())}` });
    } else if (at >= index) {
      const which = at === index ? "this step itself" : `a later step (steps[${at}])`;
      errors.push({ path, offset, message: `${written} refers to ${which}; only earlier steps can be read` });
    }
  };

  const steps: CompiledStep[] = [];
  let conditionsReadSteps = false;
  recipe.steps.forEach((slot, index) => {
    if ("invalid" in slot) return;
    const params = compileParams(slot.params, resolveVar);
    for (const error of params.errors) errors.push({ path: ["steps", index, "params", ...error.path], message: error.message });
    for (const use of params.refs) {
      if (use.ref.kind === "step") checkStepRef(use.ref.id, index, ["steps", index, "params", ...use.path], `{{ ${refText(use.ref)} }}`);
    }
    let condition: CompiledCondition | undefined;
    if (slot.condition !== undefined) {
      const path: PathSegment[] = ["steps", index, "condition"];
      const compiled = compileCondition(slot.condition);
      // Conservative: dynamic reads such as `steps.exists(...)` have no static reference.
      if (/\bsteps\b/.test(slot.condition)) conditionsReadSteps = true;
      if (!compiled.ok) errors.push({ path, message: compiled.message, offset: compiled.offset });
      else {
        condition = compiled.condition;
        for (const ref of condition.refs) {
          if (ref.kind === "step") checkStepRef(ref.name, index, path, `steps.${ref.name}`, ref.offset);
          else if (resolveVar(ref.name) === undefined) {
            const hint = didYouMean(ref.name, Object.keys(variables));
            errors.push({ path, offset: ref.offset, message: `undefined variable "${ref.name}" in condition${hint}` });
          }
        }
      }
    }
    steps.push({ index, step: slot, params, condition });
  });

  for (const name of Object.keys(variables)) {
    if (used.has(name)) continue;
    const declared = Object.hasOwn(recipe.variables, name);
    const message = declared ? `variable "${name}" is never used` : `run-time variable "${name}" is not used by this recipe`;
    warnings.push({ path: ["variables", name], message, key: true });
  }
  return { plan: { variables, steps, conditionsReadSteps }, errors, warnings };
}
