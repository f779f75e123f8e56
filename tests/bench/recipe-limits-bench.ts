/**
 * What hostile recipes cost the event loop, in-process (median of 5 unless said):
 * - the conditions of issue 12: `matches("^(a+)+$")` on 30 "a" + "!" (7.5 s before RE2) and
 *   nested `split("").all(...)` over 4,000 characters (1.0 s before the step budget);
 * - validating a 1,000-step recipe cold and again (memoised), and listing a folder holding it
 *   and a 10,000-step (888 KB) file, first and second time;
 * - over HTTP (the production build; `npm run build` first), the event-loop lag that a second
 *   client polling get_transaction_status every 20 ms sees (p50 / p99 / max of its calls) during
 *   validate_recipe of a new 1,000-step and a 10,000-step text and list_recipes of a folder with a
 *   10,000-step file and a new 1,000-step one: "before" is the service with
 *   KILN_PIPELINE_THREADS=0 (recipes parsed on the event loop, as before the worker), "after" the
 *   default (parsed in a worker thread). Target: p99 <= 50 ms.
 * Run: npx tsx tests/bench/recipe-limits-bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RE2JS } from "re2js";
import { compileCondition, listRecipes, toCelValue, validateRecipe } from "../../server/recipes";
import { registryCatalogue } from "../../server/tools/recipe-catalogue";
import { bigRecipeYaml } from "../helpers/big-recipe";
import { startServer, type KilnServer } from "../helpers/server";
import { underWatch } from "../helpers/watch";
import { caller, median, ms, percentile } from "./bench-utils";

function time(fn: () => unknown): number {
  const started = performance.now();
  try {
    fn();
  } catch {
    // The limit errors are the expected outcome; only the time matters here.
  }
  return performance.now() - started;
}

function condition(source: string, s: string): number[] {
  const compiled = compileCondition(source);
  if (!compiled.ok) throw new Error(compiled.message);
  const scope = { vars: toCelValue({ s }) as Record<string, unknown>, steps: {} };
  return Array.from({ length: 5 }, () => time(() => compiled.condition.evaluate(scope)));
}

console.log(`matches("^(a+)+$") on 31 characters: ${ms(median(condition('vars.s.matches("^(a+)+$")', `${"a".repeat(30)}!`)))}`);
console.log(`nested split("").all over 4,000 characters (stopped by the budget): ${ms(median(condition('vars.s.split("").all(c, vars.s.split("").all(d, c == d || c != d))', "ab".repeat(2000))))}`);

// Issue 26: regex cost. A pattern from a variable is capped at 1,000 characters and each match is
// charged instructions x characters before it runs; "before" runs the same match on re2js directly,
// as the condition did until then (a 10,000-character pattern took 430-580 ms, 26 s at load 16).
function patternCondition(p: string, s: string): number[] {
  const compiled = compileCondition("vars.s.matches(vars.p)");
  if (!compiled.ok) throw new Error(compiled.message);
  const scope = { vars: toCelValue({ s, p }) as Record<string, unknown>, steps: {} };
  return Array.from({ length: 5 }, () => time(() => compiled.condition.evaluate(scope)));
}
const tenK = "a".repeat(10_000);
console.log(`matches(vars.p), p = 5,000 ".*" (10,000 characters) over 10,000 characters: ${ms(median(patternCondition(".*".repeat(5000), tenK)))} (refused: pattern cap)`);
console.log(`matches(vars.p), p = 500 ".*" over 10,000 characters: ${ms(median(patternCondition(".*".repeat(500), tenK)))} (refused unrun: cost); before: ${ms(time(() => RE2JS.compile(".*".repeat(500)).matcher(tenK).find()))}`);
console.log(`matches(vars.p), p = 20 ".*" over 9,000 characters (about the most one match may cost, 94,511 steps): ${ms(median(patternCondition(".*".repeat(20), "a".repeat(9000))))}`);

const thousand = bigRecipeYaml("big", 1000);
const cold = time(() => validateRecipe(thousand, registryCatalogue));
const warm = median(Array.from({ length: 5 }, () => time(() => validateRecipe(thousand, registryCatalogue))));
console.log(`validate a 1,000-step recipe (${thousand.length} bytes): first ${ms(cold)}, again ${ms(warm)}`);

const project = mkdtempSync(path.join(tmpdir(), "kiln-bench-recipes-"));
mkdirSync(path.join(project, "recipes"));
writeFileSync(path.join(project, "recipes", "huge.yaml"), bigRecipeYaml("huge", 10_000));
writeFileSync(path.join(project, "recipes", "big.yaml"), bigRecipeYaml("big2", 1000));
const options = { projectDir: project, homeDir: project, catalogue: registryCatalogue };
let started = performance.now();
await listRecipes(options);
const firstList = performance.now() - started;
const again: number[] = [];
for (let i = 0; i < 5; i++) {
  started = performance.now();
  await listRecipes(options);
  again.push(performance.now() - started);
}
console.log(`list_recipes over a 10,000-step (${bigRecipeYaml("huge", 10_000).length} bytes) and a 1,000-step file: first ${ms(firstList)}, again ${ms(median(again))}`);
rmSync(project, { recursive: true, force: true });

/** Poll latencies of a second client (every 20 ms) while `work` runs 3 times, and the calls' own times. */
async function lag(kiln: KilnServer, work: (i: number) => Promise<unknown>): Promise<string> {
  const calls: number[] = [];
  const { latencies } = await underWatch(kiln, async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const started = performance.now();
      await work(i);
      calls.push(performance.now() - started);
    }
  });
  const p = (q: number) => percentile(latencies, q).toFixed(1);
  return `poll p50 ${p(50)} / p99 ${p(99)} / max ${Math.max(...latencies).toFixed(1)} ms (${latencies.length} polls); call median ${ms(median(calls))}`;
}

for (const [label, threads] of [["before (KILN_PIPELINE_THREADS=0, parsed on the event loop)", "0"], ["after (parsed in a worker thread)", undefined]] as const) {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-bench-recipe-lag-"));
  mkdirSync(path.join(dir, "recipes"));
  writeFileSync(path.join(dir, "recipes", "huge.yaml"), bigRecipeYaml("huge", 10_000));
  const kiln = await startServer({ cwd: dir, env: threads === undefined ? {} : { KILN_PIPELINE_THREADS: threads } });
  try {
    const call = caller(kiln.url);
    const ok = async (tool: string, params: unknown) => {
      const r = await call(tool, params);
      if (r.status !== 200) throw new Error(`${tool}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body.result;
    };
    await ok("list_recipes", {});
    await ok("validate_recipe", { yaml: bigRecipeYaml("warm-up", 1000) }); // code loaded, worker started
    await new Promise((r) => setTimeout(r, 2000));
    console.log(`\n${label}, load ${(await import("node:os")).loadavg()[0].toFixed(1)}:`);
    // A new text each time (the name differs), so that every call parses.
    console.log(`  validate_recipe, 1,000 steps:  ${await lag(kiln, (i) => ok("validate_recipe", { yaml: bigRecipeYaml(`v${i}`, 1000) }))}`);
    console.log(`  validate_recipe, 10,000 steps: ${await lag(kiln, (i) => ok("validate_recipe", { yaml: bigRecipeYaml(`w${i}`, 10_000) }))}`);
    console.log(`  list_recipes, the 10,000-step file and a new 1,000-step one: ${await lag(kiln, (i) => {
      writeFileSync(path.join(dir, "recipes", "big.yaml"), bigRecipeYaml(`big${i}`, 1000));
      return ok("list_recipes", {});
    })}`);
  } finally {
    await kiln.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exit(0);
