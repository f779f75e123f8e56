/**
 * Hostile recipes against the running service: a catastrophic-backtracking regex and nested
 * comprehensions in conditions, a 10,000-step (888 KB) file in ./recipes and a big allowed one.
 * Each is answered with the documented outcome (a skipped step, a CONDITION_LIMIT step error, an
 * invalid listing entry) while a second client polling every 20 ms sees p99 under 100 ms.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caller, percentile } from "../bench/bench-utils";
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
  put("regex-bomb.yaml", conditionRecipe("regex-bomb", 'vars.s.matches("^(a+)+$")', `${"a".repeat(30)}!`));
  put("loop-bomb.yaml", conditionRecipe("loop-bomb", 'vars.s.split("").all(c, vars.s.split("").all(d, c == d || c != d))', "ab".repeat(2000)));
  put("huge.yaml", bigRecipeYaml("huge", 10_000));
  put("big.yaml", bigRecipeYaml("big", 1000));
  kiln = await startServer({ cwd: project });
}, 120_000);
afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

/** Latencies of a client polling a cheap tool every 20 ms while `work` runs. */
async function pollDuring<T>(work: () => Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const poll = caller(kiln.url);
  await poll("get_transaction_status"); // open the keep-alive connection first
  const latencies: number[] = [];
  let running = true;
  const poller = (async () => {
    while (running) {
      const started = performance.now();
      await poll("get_transaction_status");
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await new Promise((r) => setTimeout(r, 60));
  const result = await work();
  await new Promise((r) => setTimeout(r, 60));
  running = false;
  await poller;
  return { result, latencies };
}

/**
 * Runs `work` three times while another client polls every 20 ms; returns the last result and
 * the p99 poll latency, and the p99 of a quiet period just before. The bound asserted is 100 ms
 * over that quiet p99: on an idle machine the quiet p99 is a few ms, but this 2-core machine is
 * shared with other builds, which alone can push single polls past 100 ms.
 */
async function whilePolling<T>(work: () => Promise<T>): Promise<{ result: T; p99: number; quiet: number; bound: number }> {
  const quiet = await pollDuring(() => new Promise((r) => setTimeout(r, 1000)));
  let result: T | undefined;
  const busy = await pollDuring(async () => {
    for (let i = 0; i < 3; i++) result = await work();
  });
  const p99 = percentile(busy.latencies, 99);
  const quietP99 = percentile(quiet.latencies, 99);
  console.log(`poll p99 ${p99.toFixed(1)} ms during the work (${busy.latencies.length} polls), ${quietP99.toFixed(1)} ms before it`);
  return { result: result as T, p99, quiet: quietP99, bound: 100 + quietP99 };
}

describe("hostile conditions", () => {
  it("answers a catastrophic-backtracking matches() at once (RE2): the step is skipped", async () => {
    const { result, p99, bound } = await whilePolling(() => kiln.call("run_recipe", { recipe: "regex-bomb" }));
    expect(result.status).toBe(200);
    expect(result.body.result.steps[0]).toMatchObject({ status: "skipped", reason: "condition was false" });
    expect(result.body.result.steps[0].duration_ms).toBeLessThan(100);
    expect(p99).toBeLessThan(bound);
  });

  it("stops nested comprehensions over a 4,000-character variable with CONDITION_LIMIT", async () => {
    const { result, p99, bound } = await whilePolling(() => kiln.call("run_recipe", { recipe: "loop-bomb" }));
    expect(result.status).toBe(200);
    const [guarded, after] = result.body.result.steps;
    expect(guarded).toMatchObject({ status: "failed", error: { code: "CONDITION_LIMIT" } });
    expect(guarded.error.message).toMatch(/condition was stopped/);
    expect(after.status).toBe("succeeded");
    expect(p99).toBeLessThan(bound);
  });
});

describe("big recipe files", () => {
  it("lists a 10,000-step file as invalid without parsing it, and a 1,000-step one as valid", async () => {
    await kiln.ok("list_recipes"); // the first listing parses the allowed 1,000-step file once
    const { result, p99, bound } = await whilePolling(async () => {
      const started = performance.now();
      for (let i = 0; i < 5; i++) await kiln.ok("list_recipes");
      return { recipes: (await kiln.ok("list_recipes")).recipes, ms: (performance.now() - started) / 6 };
    });
    const huge = result.recipes.find((r: { path: string }) => r.path.endsWith("huge.yaml"));
    expect(huge).toMatchObject({ valid: false, steps: 0 });
    expect(huge.errors[0].message).toMatch(/the limit is 262144 bytes/);
    expect(result.recipes.find((r: { name: string }) => r.name === "big")).toMatchObject({ valid: true, steps: 1000 });
    expect(result.ms).toBeLessThan(100);
    expect(p99).toBeLessThan(bound);
  });

  it("answers get_recipe_info and validate_recipe on the huge file with the limit, fast", async () => {
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
    const started = performance.now();
    const validation = await kiln.ok("validate_recipe", { recipe: "big" });
    expect(validation).toMatchObject({ valid: true, errors: [] });
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("refuses inline YAML of more than 1,000 steps with a validation error naming the limit", async () => {
    const steps = Array.from({ length: 1001 }, (_, i) => `  - { name: S${i}, tool: list_objects }`).join("\n");
    const result = await kiln.ok("validate_recipe", { yaml: `name: many\ndescription: d\nsteps:\n${steps}\n` });
    expect(result.valid).toBe(false);
    expect(result.errors[0].message).toMatch(/the limit is 1000 steps/);
  });
});
