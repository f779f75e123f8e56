/**
 * Step conditions in CEL (Common Expression Language) via @marcbachmann/cel-js: a sandboxed,
 * non-Turing-complete evaluator, so a recipe never reaches eval/Function or the host.
 * Invariants:
 * - conditions are parsed and type-checked once (validation and run compile); a syntax error
 *   carries the character offset so the caller can point at the line and column;
 * - the scope is `vars` (effective variables) and `steps.<id>.{status, result, error}` for EVERY
 *   step of the recipe; steps that have not run yet have status "pending" and null result/error;
 * - a result that is not a boolean is an error of the step, never coerced to true/false;
 * - evaluation is bounded (condition-budget.ts): a step budget, a string-size cap and RE2 for
 *   `matches()`; exceeding them throws ConditionLimitError (code CONDITION_LIMIT);
 * - whole numbers become CEL ints (BigInt), so `vars.count + 1` works as written; fractions stay
 *   doubles (CEL has no implicit int/double arithmetic: write `vars.size * 2.0` for a fraction).
 */
import { Environment } from "@marcbachmann/cel-js";
import { ConditionLimitError, compileRegex, instrument, literalPatterns, withBudget } from "./condition-budget";

export { CONDITION_LIMITS, ConditionLimitError } from "./condition-budget";

/** A reference a condition makes, for checking it against the recipe's variables and steps. */
export type ConditionRef = { kind: "var" | "step"; name: string; offset: number };

/** The scope a condition sees; build it with `toCelValue` for values that came from JSON/YAML. */
export interface ConditionScope {
  vars: Record<string, unknown>;
  steps: Record<string, { status: string; result: unknown; error: unknown }>;
}

/** A condition ready to evaluate. */
export interface CompiledCondition {
  source: string;
  refs: ConditionRef[];
  /** Throws ConditionError when evaluation fails or the result is not a boolean. */
  evaluate(scope: ConditionScope): boolean;
}

/** A condition that could not be evaluated, or did not give a boolean. */
export class ConditionError extends Error {
  readonly code = "CONDITION_ERROR";
}

// One environment for the process: creating one is the expensive part of cel-js. The limits keep
// a hostile expression from allocating much at parse time.
const environment = new Environment({ limits: { maxAstNodes: 2000, maxDepth: 32 } })
  .registerVariable("vars", "map")
  .registerVariable("steps", "map");

type CelNode = { op: string; args: unknown; start: number };
const isNode = (value: unknown): value is CelNode =>
  typeof value === "object" && value !== null && typeof (value as CelNode).op === "string";

/** Finds `vars.x`, `vars["x"]`, `steps.x` and `steps["x"]` anywhere in the expression. */
function collectRefs(node: unknown, refs: ConditionRef[]): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, refs);
    return;
  }
  if (!isNode(node)) return;
  if ((node.op === "." || node.op === "[]") && Array.isArray(node.args)) {
    const [target, field] = node.args as [unknown, unknown];
    const root = isNode(target) && target.op === "id" ? target.args : undefined;
    const name = typeof field === "string" ? field : isNode(field) && field.op === "value" ? field.args : undefined;
    if ((root === "vars" || root === "steps") && typeof name === "string") {
      refs.push({ kind: root === "vars" ? "var" : "step", name, offset: node.start });
    }
  }
  if (Array.isArray(node.args)) collectRefs(node.args, refs);
  else if (isNode(node.args)) collectRefs(node.args, refs);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "bigint") return `the int ${value}`;
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return typeof value === "object" ? "a map or list" : `${typeof value} ${String(value)}`;
}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

function summary(error: unknown): string {
  const e = error as { summary?: string; message?: string };
  return e.summary ?? e.message?.split("\n")[0] ?? String(error);
}

/**
 * Parses and type-checks a condition. On failure returns the message and the offset in `source`.
 * @example
 * const c = compileCondition('vars.light_intensity > 0');
 * if (c.ok) c.condition.evaluate({ vars: { light_intensity: 1.2 }, steps: {} }); // true
 */
export function compileCondition(
  source: string,
): { ok: true; condition: CompiledCondition } | { ok: false; message: string; offset: number } {
  let parsed: ReturnType<typeof environment.parse>;
  try {
    parsed = environment.parse(source);
  } catch (error) {
    const offset = (error as { range?: { start: number } }).range?.start ?? 0;
    return { ok: false, message: `condition syntax error: ${summary(error)}`, offset };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    const reason = summary(checked.error);
    const hint = /^Unknown variable/.test(reason) ? " (a condition reads vars.<name> and steps.<id>.status, .result, .error)" : "";
    return { ok: false, message: `condition error: ${reason}${hint}`, offset: checked.error?.range?.start ?? 0 };
  }
  if (checked.type !== "bool" && checked.type !== "dyn") {
    return { ok: false, message: `a condition must give true or false; this one gives ${checked.type}`, offset: 0 };
  }
  for (const { pattern, offset } of literalPatterns(parsed.ast)) {
    try {
      compileRegex(pattern);
    } catch (error) {
      return { ok: false, message: `condition error: ${(error as Error).message}`, offset };
    }
  }
  const refs: ConditionRef[] = [];
  collectRefs(parsed.ast, refs);
  instrument(parsed.ast);
  const evaluate = (scope: ConditionScope): boolean => {
    let result: unknown;
    try {
      result = withBudget(() => parsed(scope));
    } catch (error) {
      if (error instanceof ConditionLimitError) throw new ConditionLimitError(`condition "${clip(source)}": ${error.message}`);
      throw new ConditionError(`condition "${source}" could not be evaluated: ${summary(error)}`);
    }
    if (typeof result !== "boolean") {
      throw new ConditionError(`condition "${source}" gave ${describe(result)}, not true or false`);
    }
    return result;
  };
  return { ok: true, condition: { source, refs, evaluate } };
}

/**
 * Converts a JSON/YAML value for CEL: safe integers → BigInt, undefined → null, objects copied
 * without a prototype (lookups then only see own keys). Nesting past 64 levels (or a cycle,
 * which in-process tools could return) becomes null instead of recursing forever.
 */
export function toCelValue(value: unknown, depth = 0): unknown {
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value === undefined || depth > 64) return null;
  if (Array.isArray(value)) return value.map((item) => toCelValue(item, depth + 1));
  if (typeof value === "object" && value !== null && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = toCelValue(item, depth + 1);
    return out;
  }
  return value;
}
