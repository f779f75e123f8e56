// Invariant: conditions are CEL, compiled once with syntax errors located by offset; at run time
// they see vars and steps.<id>.{status,result,error}, and anything but a boolean is an error.
import { afterEach, describe, expect, it, vi } from "vitest";
import { RE2JS } from "re2js";
import { CONDITION_LIMITS, ConditionError, ConditionLimitError, compileCondition, toCelValue, type ConditionScope } from "./condition";

const scope = (vars: Record<string, unknown>, steps: ConditionScope["steps"] = {}): ConditionScope => ({
  vars: toCelValue(vars) as Record<string, unknown>,
  steps: toCelValue(steps) as ConditionScope["steps"],
});
const evaluate = (source: string, s: ConditionScope) => {
  const compiled = compileCondition(source);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.condition.evaluate(s);
};

describe("compileCondition", () => {
  it.each([
    ["vars.light_intensity > 0", { light_intensity: 1.2 }, true],
    ["vars.ground_size > 10", { ground_size: 100 }, true],
    ["vars.ground_size + 1 == 101", { ground_size: 100 }, true],
    ["vars.name == 'Sun' && !vars.off", { name: "Sun", off: false }, true],
    ["vars.size * 2.0 > 3.0", { size: 1.6 }, true],
    ["vars.count < 3", { count: 5 }, false],
  ])("evaluates %s", (source, vars, expected) => {
    expect(evaluate(source, scope(vars))).toBe(expected);
  });

  it("reads earlier steps and sees steps that have not run as pending", () => {
    const steps = {
      ground: { status: "succeeded", result: { id: 4, name: "Ground" }, error: null },
      later: { status: "pending", result: null, error: null },
    };
    const source = 'steps.ground.status == "succeeded" && steps.ground.result.id > 3 && steps.later.status == "pending"';
    expect(evaluate(source, scope({}, steps))).toBe(true);
  });

  it.each([
    ["vars.size >", 11],
    ["vars.size > > 1", 12],
    ["(vars.a", 7],
  ])("reports the syntax error in %s at offset %i", (source, offset) => {
    const compiled = compileCondition(source);
    expect(compiled).toMatchObject({ ok: false, offset, message: expect.stringMatching(/^condition syntax error/) });
  });

  it("rejects names other than vars and steps, with a hint", () => {
    expect(compileCondition("size > 1")).toMatchObject({ ok: false, message: expect.stringMatching(/Unknown variable: size.*vars\.<name>/) });
  });

  it("rejects a condition whose type is known not to be boolean", () => {
    expect(compileCondition("1 + 2")).toMatchObject({ ok: false, message: "a condition must give true or false; this one gives int" });
  });

  it("throws ConditionError when a dynamic result is not a boolean", () => {
    expect(() => evaluate("vars.name", scope({ name: "Sun" }))).toThrow(ConditionError);
    expect(() => evaluate("vars.name", scope({ name: "Sun" }))).toThrow(/gave the string "Sun", not true or false/);
  });

  it("throws ConditionError when evaluation fails", () => {
    expect(() => evaluate("steps.a.result.id > 1", scope({}, { a: { status: "skipped", result: null, error: null } }))).toThrow(
      /could not be evaluated/,
    );
  });

  it("collects the variables and steps it reads, with offsets", () => {
    const compiled = compileCondition('vars.a > 1 || steps["b"].status == "failed"');
    expect(compiled.ok && compiled.condition.refs).toEqual([
      { kind: "var", name: "a", offset: 0 },
      { kind: "step", name: "b", offset: 14 },
    ]);
  });
});

describe("condition limits", () => {
  const timed = (source: string, s: ConditionScope) => {
    const started = performance.now();
    let outcome: unknown;
    try {
      outcome = evaluate(source, s);
    } catch (error) {
      outcome = error;
    }
    return { outcome, ms: performance.now() - started };
  };

  it("runs matches() in linear time: the catastrophic backtracking pattern answers at once", () => {
    // 40 "a"s: a backtracking engine would try 2^40 ways (30 took 7.5 s), so an answer at all,
    // within the test's timeout, proves the linear engine; no clock needed.
    const { outcome } = timed('vars.s.matches("^(a+)+$")', scope({ s: `${"a".repeat(40)}!` }));
    expect(outcome).toBe(false);
    expect(evaluate('vars.s.matches("^(a+)+$")', scope({ s: "a".repeat(5000) }))).toBe(true);
  });

  it("uses RE2 syntax: partial matches, inline flags, and no backreferences", () => {
    expect(evaluate('vars.s.matches("b+")', scope({ s: "abbbc" }))).toBe(true);
    expect(evaluate('vars.s.matches("(?i)^ABC$")', scope({ s: "abc" }))).toBe(true);
    // JavaScript's RegExp would accept a backreference; RE2 refuses it when the recipe is validated.
    expect(compileCondition('vars.s.matches("(a)\\\\1")')).toMatchObject({ ok: false, message: expect.stringMatching(/invalid regular expression/) });
  });

  it("fails a pattern that is only known at run time with CONDITION_ERROR when RE2 refuses it", () => {
    expect(() => evaluate("vars.s.matches(vars.p)", scope({ s: "aa", p: "(a)\\1" }))).toThrow(ConditionError);
  });

  it("stops nested comprehensions over a long string with CONDITION_LIMIT", () => {
    const s = "ab".repeat(2000);
    const { outcome } = timed('vars.s.split("").all(c, vars.s.split("").all(d, c == d || c != d))', scope({ s }));
    expect(outcome).toBeInstanceOf(ConditionLimitError);
    expect((outcome as ConditionLimitError).code).toBe("CONDITION_LIMIT");
    // The step budget normally stops it; on a cold JIT under load the 250 ms deadline may come first.
    expect((outcome as Error).message).toMatch(/more than 100000 evaluation steps|ran longer than 250 ms/);
  });

  it("stops nested loops over literal lists, which read no input at all", () => {
    const list = `[${Array.from({ length: 100 }, (_, i) => i).join(",")}]`;
    const source = `${list}.all(a, ${list}.all(b, ${list}.all(c, true)))`;
    expect(timed(source, scope({})).outcome).toBeInstanceOf(ConditionLimitError);
  });

  it("stops a string that doubles inside nested comprehensions at the string cap", () => {
    const source = "[vars.s].map(a, [a + a].map(b, [b + b].map(c, [c + c].map(d, [d + d].map(e, e.size()))))).size() > 0";
    const { outcome } = timed(source, scope({ s: "x".repeat(1000) }));
    expect(outcome).toBeInstanceOf(ConditionLimitError);
    expect((outcome as Error).message).toMatch(/string of 16000 characters/);
  });

  it("refuses to read a variable longer than the string cap, and CEL's || cannot swallow the limit", () => {
    const s = scope({ s: "x".repeat(CONDITION_LIMITS.maxStringChars + 1) });
    expect(() => evaluate('vars.s == ""', s)).toThrow(ConditionLimitError);
    expect(() => evaluate('true || vars.s == ""', s)).not.toThrow();
    expect(() => evaluate('vars.s == "" || true', s)).toThrow(ConditionLimitError);
  });

  // Issue 26: a 10,000-character pattern from a variable against a 10,000-character string cost
  // 430-580 ms per evaluation on the event loop, past both the step budget and the deadline.
  describe("regex cost", () => {
    const matcher = () => vi.spyOn(RE2JS.prototype, "matcher");
    afterEach(() => vi.restoreAllMocks());

    it("refuses a pattern longer than maxPatternChars, from a variable or written in the condition", () => {
      const spy = matcher();
      const s = scope({ s: "a".repeat(10_000), p: ".*".repeat(5000) });
      expect(() => evaluate("vars.s.matches(vars.p)", s)).toThrow(/regular expression has 10000 characters \(the limit is 1000\)/);
      expect(spy).not.toHaveBeenCalled();
      const literal = compileCondition(`vars.s.matches("${"a".repeat(CONDITION_LIMITS.maxPatternChars + 1)}")`);
      expect(literal).toMatchObject({ ok: false, message: expect.stringMatching(/the limit is 1000/) });
    });

    it("charges a match its worst case (instructions x characters) before running it, and refuses it unrun when over the budget", () => {
      const spy = matcher();
      // 500 `.*`: 1,002 instructions x 10,001 positions, 2,505,251 steps at 4 pairs a step.
      const s = scope({ s: "a".repeat(10_000), p: ".*".repeat(500) });
      let error: unknown;
      try {
        evaluate("vars.s.matches(vars.p)", s);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConditionLimitError);
      expect((error as Error).message).toMatch(/matches\(\) of a 1000-character pattern \(1002 instructions\) over 10000 characters would cost 2505251 evaluation steps \(the limit is 100000\)/);
      expect(spy, "the match never ran").not.toHaveBeenCalled();
      // CEL's || cannot swallow it either.
      expect(() => evaluate("vars.s.matches(vars.p) || true", s)).toThrow(ConditionLimitError);
    });

    it("counts several affordable matches together against one budget", () => {
      // Each: 42 instructions x 2,001 positions / 4 = 21,011 steps; five of them pass the budget.
      const s = scope({ s: "a".repeat(2000), p: ".*".repeat(20) });
      expect(evaluate("vars.s.matches(vars.p)", s)).toBe(true);
      const five = Array.from({ length: 5 }, () => "vars.s.matches(vars.p)").join(" && ");
      expect(() => evaluate(five, s)).toThrow(/would cost .* evaluation steps/);
    });

    it("lets ordinary patterns over the longest strings through", () => {
      expect(evaluate('vars.s.matches("^[a-z]+-[0-9]{3}$")', scope({ s: `${"a".repeat(9_995)}-123` }))).toBe(true);
      expect(evaluate('vars.s.matches("(?i)cube")', scope({ s: `${"x".repeat(9_990)}CUBE` }))).toBe(true);
    });
  });

  it("lets ordinary comprehensions over a few thousand items through", () => {
    const items = Array.from({ length: 2000 }, (_, i) => ({ name: `o${i}` }));
    const s = scope({}, { list: { status: "succeeded", result: { items }, error: null } });
    expect(evaluate('steps.list.result.items.all(o, o.name.startsWith("o"))', s)).toBe(true);
  });
});

describe("toCelValue", () => {
  it("turns whole numbers into ints and strips prototypes", () => {
    const value = toCelValue({ n: 3, f: 1.5, list: [1], missing: undefined }) as Record<string, unknown>;
    expect(value.n).toBe(3n);
    expect(value.f).toBe(1.5);
    expect(value.list).toEqual([1n]);
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect("missing" in value).toBe(false);
  });

  it("stops at cycles instead of recursing forever", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toCelValue(cyclic)).not.toThrow();
  });
});
