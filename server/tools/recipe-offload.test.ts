/**
 * Recipe validation off the event loop (recipe-catalogue.ts, prepareOffLoop): the YAML, schema
 * and compile rules run in a worker thread of the pipeline's pool, the tool checks here in
 * slices. Invariants: the answer is exactly validateRecipe's (line/column of every error and
 * warning, the parsed recipe); a timer on the event loop keeps ticking while a 10,000-step text
 * is validated; beyond POOL.recipeJobs texts at once the next is 503 BUSY with Retry-After.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bigRecipeYaml } from "../../tests/helpers/big-recipe";
import { isKilnError } from "../errors";
import { POOL, poolStatus } from "../pipeline/worker/pool";
import { prepareRecipe, validateRecipe, validateRecipeAsync, type RecipeToolCatalogue } from "../recipes";
import { prepareOffLoop, registryCatalogue } from "./recipe-catalogue";

// Each path gets its own catalogue object: validations are memoised per catalogue, and a
// memoised answer would hide the path under test.
const inProcess: RecipeToolCatalogue = { ...registryCatalogue };
const offLoop: RecipeToolCatalogue = { ...registryCatalogue };
const viaWorker = (text: string, options: Parameters<typeof validateRecipe>[2] = {}) =>
  validateRecipeAsync(text, offLoop, { ...options, prepare: prepareOffLoop });

/**
 * Ticks every 10 ms while `work` runs, noting at each tick whether a recipe parse was under way
 * in the pool. A tick during a parse proves the mechanism without a clock: the parse ran on a
 * worker thread while the event loop kept running. (A loaded machine only lengthens the parse.)
 */
async function ticking<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; ticksDuringParse: number }> {
  let ticks = 0;
  let ticksDuringParse = 0;
  const timer = setInterval(() => {
    ticks++;
    if (poolStatus().recipe_jobs >= 1) ticksDuringParse++;
  }, 10);
  try {
    return { result: await work(), ticks, ticksDuringParse };
  } finally {
    clearInterval(timer);
  }
}

describe("recipe validation in a worker thread", () => {
  it("gives validateRecipe's answer, errors and warnings with their lines and columns", async () => {
    const big = bigRecipeYaml("big", 400);
    const texts = [
      readFileSync("tests/fixtures/recipes/many-problems.yaml", "utf8").padEnd(5000, "\n"),
      readFileSync("tests/fixtures/recipes/step-results.yaml", "utf8").padEnd(5000, "\n"),
      big,
      big.replace("tool: create_gameobject", "tool: create_gameobjet").replace(/type: Cube/g, 'type: "Cub\\x65s"'),
      `${big}  - name: Ref\n    tool: begin_transaction\n    params: { name: "{{ steps.cube_3.result.x }}", n: "{{ size }}", bad: "{{ nope }}" }\n    condition: 'steps.cube_9999.status == "x" && vars.nada'\ntransaction: true\n`,
      `${big}  - name: Alias\n    tool: create_gameobject\n    params: &p { name: A, type: 3, bogus: 1 }\n  - name: Again\n    tool: create_gameobject\n    params: *p\n`,
      `${big}steps: []\n`,
    ];
    for (const text of texts) {
      for (const variables of [undefined, { size: "two", unused: 1 }]) {
        const expected = validateRecipe(text, inProcess, { variables });
        expect(text.length).toBeGreaterThanOrEqual(4096); // long enough to go to the worker
        expect(await viaWorker(text, { variables })).toEqual(expected);
      }
    }
    expect(validateRecipe(texts[3], inProcess).errors).toHaveLength(400); // one unknown tool, 399 bad types
    expect(poolStatus().threads).toBeGreaterThanOrEqual(1);
  }, 300_000);

  it("keeps a 10 ms timer ticking while a 10,000-step recipe is validated on a worker", async () => {
    await viaWorker(bigRecipeYaml("warm-up", 1000)); // the worker thread has started and loaded its code
    const limits = { maxBytes: 4 * 1024 * 1024, maxSteps: 20_000 }; // past the defaults, so that it is all parsed
    // In-process, the timer did not tick at all for 1-3 s; the gap figures are in
    // tests/bench/recipe-limits-bench.ts.
    const text = bigRecipeYaml("huge-a", 10_000);
    const { result, ticks, ticksDuringParse } = await ticking(() => viaWorker(text, { limits }));
    console.log(`10,000 steps: ${ticks} ticks of a 10 ms timer, ${ticksDuringParse} while the parse was on a worker`);
    expect(ticksDuringParse, "timer ticks while the parse ran on a worker thread").toBeGreaterThanOrEqual(1);
    expect(result.errors.map((e) => e.message)).toEqual(["a recipe has at most 1000 steps"]);
    expect(result).toEqual(validateRecipe(text, inProcess, { limits }));
    const thousand = await viaWorker(bigRecipeYaml("thousand", 1000));
    expect(thousand).toMatchObject({ valid: true, errors: [] });
  }, 300_000);

  it("parses at most POOL.recipeJobs big texts at once: one more is 503 BUSY with Retry-After, and the count frees", async () => {
    const texts = Array.from({ length: POOL.recipeJobs + 1 }, (_, i) => bigRecipeYaml(`busy-${i}`, 300));
    const outcomes = await Promise.allSettled(texts.map((text) => prepareOffLoop(text, {})));
    const refused = outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(1);
    expect(isKilnError(refused[0]) && [refused[0].status, refused[0].code, refused[0].headers]).toEqual([503, "BUSY", { "retry-after": String(POOL.recipeRetryAfterSeconds) }]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(POOL.recipeJobs);
    // Small texts are parsed in-process at once and never refused.
    expect((await prepareOffLoop("name: a\ndescription: d\nsteps:\n  - { name: A, tool: list_objects }\n", {})).broken).toBe(false);
    expect((await prepareOffLoop(texts[0], {})).head).toEqual(prepareRecipe(texts[0]).head);
  }, 300_000);
});
