/**
 * Hostile recipes against the running service: a catastrophic-backtracking regex and nested
 * comprehensions in conditions, a 10,000-step (888 KB) file in ./recipes and a big allowed one.
 * Each is answered with the documented outcome (a skipped step, a CONDITION_LIMIT step error, an
 * invalid listing entry). The regex bomb has 40 "a"s: a backtracking engine would take hours
 * (2^40 paths; 30 took 7.5 s), so being answered within the test's timeout proves the linear engine.
 * The event-loop figures are in tests/bench/recipe-limits-bench.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bigRecipeYaml } from "../helpers/big-recipe";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
let project: string;

const conditionRecipe = (name: string, condition: string, s: string) =>
  [
    `name: ${name}`,
    "description: a hostile condition",
    "variables:",
    `  s: "${s}"`,
    "steps:",
    "  - name: Guarded",
    "    tool: list_objects",
    `    condition: '${condition}'`,
    "    on_error: continue",
    "  - name: After",
    "    tool: list_objects",
    "",
  ].join("\n");

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-recipe-limits-"));
  mkdirSync(path.join(project, "recipes"));
  const put = (file: string, text: string) => writeFileSync(path.join(project, "recipes", file), text);
  put("regex-bomb.yaml", conditionRecipe("regex-bomb", 'vars.s.matches("^(a+)+$")', `${"a".repeat(40)}!`));
  put("loop-bomb.yaml", conditionRecipe("loop-bomb", 'vars.s.split("").all(c, vars.s.split("").all(d, c == d || c != d))', "ab".repeat(2000)));
  put("huge.yaml", bigRecipeYaml("huge", 10_000));
  put("big.yaml", bigRecipeYaml("big", 1000));
  kiln = await startServer({ cwd: project });
}, 300_000);
afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

/**
 * Runs `work` three times and returns the last result. The outcomes asserted are the mechanisms
 * (RE2 answers a backtracking pattern at once, the step budget stops a comprehension, a file over
 * the size limit is refused before parsing, a parsed file is memoised); what they cost the event
 * loop is measured by tests/bench/recipe-limits-bench.ts, not asserted, since a loaded machine can
 * delay any single call.
 */
async function thrice<T>(work: () => Promise<T>): Promise<{ result: T }> {
  let result: T | undefined;
  for (let i = 0; i < 3; i++) result = await work();
  return { result: result as T };
}

describe("hostile conditions", () => {
  it("answers a catastrophic-backtracking matches() at once (RE2): the step is skipped", async () => {
    const { result } = await thrice(() => kiln.call("run_recipe", { recipe: "regex-bomb" }));
    expect(result.status).toBe(200);
    expect(result.body.result.steps[0]).toMatchObject({ status: "skipped", reason: "condition was false" });
  });

  it("stops nested comprehensions over a 4,000-character variable with CONDITION_LIMIT", async () => {
    const { result } = await thrice(() => kiln.call("run_recipe", { recipe: "loop-bomb" }));
    expect(result.status).toBe(200);
    const [guarded, after] = result.body.result.steps;
    expect(guarded).toMatchObject({ status: "failed", error: { code: "CONDITION_LIMIT" } });
    expect(guarded.error.message).toMatch(/condition was stopped/);
    expect(after.status).toBe("succeeded");
  });
});

describe("big recipe files", () => {
  it("lists a 10,000-step file as invalid without parsing it, and a 1,000-step one as valid", async () => {
    await kiln.ok("list_recipes"); // the first listing parses the allowed 1,000-step file once
    const { result } = await thrice(async () => {
      for (let i = 0; i < 5; i++) await kiln.ok("list_recipes");
      return { recipes: (await kiln.ok("list_recipes")).recipes };
    });
    const huge = result.recipes.find((r: { path: string }) => r.path.endsWith("huge.yaml"));
    expect(huge).toMatchObject({ valid: false, steps: 0 });
    expect(huge.errors[0].message).toMatch(/the limit is 262144 bytes/);
    expect(result.recipes.find((r: { name: string }) => r.name === "big")).toMatchObject({ valid: true, steps: 1000 });
  });

  it("answers get_recipe_info and validate_recipe on the huge file with the limit", async () => {
    const info = await kiln.call("get_recipe_info", { recipe: "huge" });
    expect(info.status).toBe(200);
    expect(info.body.result.validation.errors[0].message).toMatch(/the limit is 262144 bytes/);
    // By name, with and without run-time values: the size error, not the empty text's.
    for (const variables of [undefined, { x: 1 }]) {
      const huge = await kiln.ok("validate_recipe", { recipe: "huge", ...(variables ? { variables } : {}) });
      expect(huge).toMatchObject({ valid: false });
      expect(huge.errors).toHaveLength(1);
      expect(huge.errors[0].message).toMatch(/the limit is 262144 bytes/);
    }
    const validation = await kiln.ok("validate_recipe", { recipe: "big" });
    expect(validation).toMatchObject({ valid: true, errors: [] });
  });

  it("refuses inline YAML of more than 1,000 steps with a validation error naming the limit", async () => {
    const steps = Array.from({ length: 1001 }, (_, i) => `  - { name: S${i}, tool: list_objects }`).join("\n");
    const result = await kiln.ok("validate_recipe", { yaml: `name: many\ndescription: d\nsteps:\n${steps}\n` });
    expect(result.valid).toBe(false);
    expect(result.errors[0].message).toMatch(/the limit is 1000 steps/);
  });
});
