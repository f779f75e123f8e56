/**
 * Bounds on evaluating one condition, so a hostile expression or value cannot stall the
 * service. cel-js has parse-time limits only, so this module hooks the checked AST:
 * - every node evaluation costs one step (comprehension bodies are re-evaluated per element,
 *   so nested `all`/`map` loops pay for each iteration);
 * - every value a node yields is measured: strings over `maxStringChars` stop the evaluation,
 *   strings cost one step per 16 characters and lists one per 4 items (building them is work);
 * - `matches()` runs on RE2 (re2js: linear time, RE2 syntax as the CEL spec says) instead of
 *   JavaScript's backtracking RegExp. Linear in the input, but times the size of the compiled
 *   pattern: re2js simulates the automaton, each input character visiting up to every
 *   instruction (a 10,000-character pattern of `.*` against 10,000 characters took 0.5-26 s).
 *   So patterns are capped at `maxPatternChars`, and a call is charged its worst case,
 *   program size x (input length + 1) / REGEX_PAIRS_PER_STEP, BEFORE it runs: a call the budget
 *   cannot pay for is refused without running, so no single match can outlast the budget (the
 *   deadline below only sees time between steps, so it could not stop one long match);
 * - past `maxSteps` steps, or `deadlineMs` of wall time (a safety net for costs this model
 *   misses), evaluation stops with ConditionLimitError (code CONDITION_LIMIT).
 * The hooks rely on cel-js internals (AST nodes with `op`/`args`, `evaluate` and the checked
 * `handle`); condition.test.ts fails if an upgrade changes them.
 */
import { RE2JS } from "re2js";

/** The documented limits (docs/recipes.md, "Condition limits"). */
export const CONDITION_LIMITS = Object.freeze({ maxSteps: 100_000, maxStringChars: 10_000, maxPatternChars: 1000, deadlineMs: 250 });

/**
 * (instruction, character) pairs of the regex automaton per budget step, chosen so that one match
 * spending the whole budget (400,000 pairs of the worst pattern, all-`.*`) costs about what the
 * whole budget of other nodes costs (tests/bench/recipe-limits-bench.ts prints both).
 */
export const REGEX_PAIRS_PER_STEP = 4;

/** A condition exceeded its evaluation budget or touched an oversized string. */
export class ConditionLimitError extends Error {
  readonly code = "CONDITION_LIMIT";
}

/** Counts the cost of one evaluation; the hooks find it through `active`. */
class Meter {
  steps = 0;
  exceeded: ConditionLimitError | undefined;
  private readonly started = performance.now();
  private nextClockCheck = 256;

  spend(steps: number): void {
    this.steps += steps;
    if (this.exceeded) throw this.exceeded;
    if (this.steps > CONDITION_LIMITS.maxSteps) {
      this.fail(`it needed more than ${CONDITION_LIMITS.maxSteps} evaluation steps`);
    }
    if (this.steps >= this.nextClockCheck) {
      this.nextClockCheck = this.steps + 256;
      if (performance.now() - this.started > CONDITION_LIMITS.deadlineMs) {
        this.fail(`it ran longer than ${CONDITION_LIMITS.deadlineMs} ms`);
      }
    }
  }

  measure(value: unknown): void {
    if (typeof value === "string") {
      if (value.length > CONDITION_LIMITS.maxStringChars) {
        this.fail(`it met a string of ${value.length} characters (the limit is ${CONDITION_LIMITS.maxStringChars})`);
      }
      if (value.length >= 16) this.spend(value.length >> 4);
    } else if (Array.isArray(value) && value.length >= 4) {
      this.spend(value.length >> 2);
    }
  }

  fail(reason: string): never {
    // Kept so that a limit hit inside `a || b` (where CEL absorbs errors) still ends the run.
    this.exceeded ??= new ConditionLimitError(`the condition was stopped: ${reason}`);
    throw this.exceeded;
  }
}

let active: Meter | undefined;

/**
 * Runs `evaluate` under a fresh budget. Throws ConditionLimitError when the budget was exceeded,
 * even if CEL's error absorption let the expression finish.
 */
export function withBudget<T>(evaluate: () => T): T {
  const meter = new Meter();
  const outer = active;
  active = meter;
  try {
    const result = evaluate();
    if (meter.exceeded) throw meter.exceeded;
    return result;
  } catch (error) {
    throw meter.exceeded ?? error;
  } finally {
    active = outer;
  }
}

type HookedNode = {
  op: string;
  args: unknown;
  start: number;
  handle?: (...args: unknown[]) => unknown;
  evaluate: (...args: unknown[]) => unknown;
};
const isNode = (value: unknown): value is HookedNode =>
  typeof value === "object" && value !== null && typeof (value as HookedNode).op === "string";

const regexCache = new Map<string, RE2JS>();

/** Compiles an RE2 pattern (cached); throws Error with RE2's message when it is invalid. */
export function compileRegex(pattern: string): RE2JS {
  let regex = regexCache.get(pattern);
  if (!regex) {
    if (pattern.length > CONDITION_LIMITS.maxPatternChars) {
      throw new ConditionLimitError(`the regular expression has ${pattern.length} characters (the limit is ${CONDITION_LIMITS.maxPatternChars})`);
    }
    try {
      regex = RE2JS.compile(pattern);
    } catch (error) {
      throw new Error(`invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
    }
    if (regexCache.size >= 256) regexCache.delete(regexCache.keys().next().value as string);
    regexCache.set(pattern, regex);
  }
  return regex;
}

function re2Matches(values: unknown): boolean {
  const [text, pattern] = values as [unknown, unknown];
  if (typeof text !== "string" || typeof pattern !== "string") {
    throw new Error("matches() needs a string and a string pattern");
  }
  active?.measure(text);
  active?.spend(pattern.length); // compiling (cached afterwards, but charged alike)
  const regex = compileRegex(pattern);
  // The worst case, charged before running (see the module comment): over budget, never run.
  const cost = Math.ceil((regex.programSize() * (text.length + 1)) / REGEX_PAIRS_PER_STEP);
  if (active && active.steps + cost > CONDITION_LIMITS.maxSteps) {
    active.fail(`matches() of a ${pattern.length}-character pattern (${regex.programSize()} instructions) over ${text.length} characters would cost ${cost} evaluation steps (the limit is ${CONDITION_LIMITS.maxSteps})`);
  }
  active?.spend(cost);
  return regex.matcher(text).find();
}

/** `x.matches("literal")` calls, for checking their patterns at validation time. */
export function literalPatterns(ast: unknown): { pattern: string; offset: number }[] {
  const found: { pattern: string; offset: number }[] = [];
  walk(ast, (node) => {
    if (node.op !== "rcall" || !Array.isArray(node.args) || node.args[0] !== "matches") return;
    const [arg] = node.args[2] as unknown[];
    if (isNode(arg) && arg.op === "value" && typeof arg.args === "string") found.push({ pattern: arg.args, offset: arg.start });
  });
  return found;
}

/**
 * Hooks a CHECKED AST (after `parsed.check()`) so evaluations are metered and `matches()`
 * uses RE2. Call once per parsed condition.
 */
export function instrument(ast: unknown): void {
  walk(ast, (node) => {
    let inner = node.evaluate;
    // cel-js replaces a node's `evaluate` on first use; the setter keeps our wrapper in front.
    Object.defineProperty(node, "evaluate", {
      configurable: true,
      get: () => metered,
      set: (next: HookedNode["evaluate"]) => {
        inner = next;
      },
    });
    function metered(this: unknown, ...args: unknown[]): unknown {
      active?.spend(1);
      const value = inner.apply(this, args);
      active?.measure(value);
      return value;
    }
    if (node.op === "rcall" && Array.isArray(node.args) && node.args[0] === "matches" && (node.args[2] as unknown[]).length === 1) {
      if (typeof node.handle !== "function") throw new Error("cel-js changed: a checked matches() call has no handle");
      node.handle = re2Matches;
    }
  });
}

function walk(root: unknown, visit: (node: HookedNode) => void): void {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      stack.push(...item);
    } else if (isNode(item) && !seen.has(item)) {
      seen.add(item);
      visit(item);
      stack.push(item.args);
    } else if (typeof item === "object" && item !== null && !isNode(item) && !seen.has(item)) {
      // Comprehension arguments are plain objects holding nodes.
      seen.add(item);
      stack.push(...Object.values(item));
    }
  }
}
