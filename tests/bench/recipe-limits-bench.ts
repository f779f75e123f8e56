/**
 * What hostile recipes cost the event loop, in-process (median of 5 unless said):
 * - the conditions of issue 12: `matches("^(a+)+$")` on 30 "a" + "!" (7.5 s before RE2) and
 *   nested `split("").all(...)` over 4,000 characters (1.0 s before the step budget);
 * - validating a 1,000-step recipe cold and again (memoised), and listing a folder holding it
 *   and a 10,000-step (888 KB) file, first and second time.
 * Run: npx tsx tests/bench/recipe-limits-bench.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compileCondition, listRecipes, toCelValue, validateRecipe } from "../../server/recipes";
import { registryCatalogue } from "../../server/tools/recipe-catalogue";
import { bigRecipeYaml } from "../helpers/big-recipe";
import { median, ms } from "./bench-utils";

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
