/**
 * Big recipes are parsed in a worker thread (docs/recipes.md, "Limits"): while list_recipes,
 * get_recipe_info and validate_recipe parse 1,000-step texts for the first time, a second client
 * is answered while the parse runs on a worker thread; the answers are the full validations (line and
 * column of errors); beyond the limit of texts parsed at once a call is 503 BUSY with Retry-After.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workersSeenDuring } from "../helpers/watch";
import { bigRecipeYaml } from "../helpers/big-recipe";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
let project: string;
const recipesDir = () => path.join(project, "recipes");

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-recipe-worker-"));
  mkdirSync(recipesDir());
  writeFileSync(path.join(recipesDir(), "huge.yaml"), bigRecipeYaml("huge", 10_000));
  kiln = await startServer({ cwd: project });
  await kiln.ok("list_recipes"); // the worker thread has started and loaded its code
}, 180_000);
afterAll(async () => {
  await kiln?.stop();
  rmSync(project, { recursive: true, force: true });
});

/**
 * Runs `work` while a second client polls get_pipeline_status, and asserts the mechanism: some
 * answer came while a recipe parse was under way in the worker pool (so the parse ran on a worker
 * thread and the event loop answered meanwhile). Parsing a 1,000-step text on the event loop held
 * every poll for 0.2-0.6 s; that figure and the poll latencies are in tests/bench/recipe-limits-bench.ts,
 * not asserted here, since a loaded machine can delay any poll.
 */
async function answeredDuringParse<T>(label: string, work: () => Promise<T>): Promise<T> {
  const { result, seen } = await workersSeenDuring(kiln, work);
  const during = seen.filter((w) => w.recipe_jobs >= 1).length;
  console.log(`${label}: ${seen.length} polls answered, ${during} while a parse was under way on a worker`);
  expect(during, "answers to a second client while a parse ran on a worker thread").toBeGreaterThanOrEqual(1);
  return result;
}

describe("big recipes off the event loop", () => {
  it("lists a folder with new 1,000-step files (one invalid) while another client is answered", async () => {
    const broken = bigRecipeYaml("broken", 1000).replace("    tool: create_gameobject\n", "    tool: create_gameobjet\n");
    for (let i = 0; i < 3; i++) writeFileSync(path.join(recipesDir(), `big-${i}.yaml`), bigRecipeYaml(`big-${i}`, 1000));
    writeFileSync(path.join(recipesDir(), "broken.yaml"), broken);
    const listed = await answeredDuringParse("list_recipes, 4 new 1,000-step files", () => kiln.ok("list_recipes"));
    const byName = new Map(listed.recipes.map((r: { name: string }) => [r.name, r]));
    for (let i = 0; i < 3; i++) expect(byName.get(`big-${i}`)).toMatchObject({ valid: true, steps: 1000, errors: [] });
    expect(byName.get("broken")).toMatchObject({ valid: false, steps: 1000 });
    expect((byName.get("broken") as { errors: unknown[] }).errors).toEqual([
      { path: "steps[0].tool", line: 7, column: 11, message: expect.stringMatching(/^unknown tool "create_gameobjet".*create_gameobject/) },
    ]);
    expect(listed.recipes.find((r: { path: string }) => r.path.endsWith("huge.yaml"))).toMatchObject({ valid: false, steps: 0 });
    const info = await kiln.ok("get_recipe_info", { recipe: "big-1" });
    expect(info).toMatchObject({ name: "big-1", validation: { valid: true, errors: [] }, variables: [{ name: "size", default: 2 }] });
    expect(info.recipe.steps).toHaveLength(1000);
  }, 300_000);

  it("validates inline 1,000-step YAML, with errors located, while another client is answered", async () => {
    const text = bigRecipeYaml("inline", 1000).replace('params: { name: "Cube999", type: Cube }', 'params: { name: "Cube999", type: "{{ size }}" }');
    const result = await answeredDuringParse("validate_recipe, inline 1,000 steps", async () => {
      const first = await kiln.ok("validate_recipe", { yaml: text });
      return { first, again: await kiln.ok("validate_recipe", { yaml: `${text}# again\n` }) };
    });
    expect(result.first.valid).toBe(false);
    expect(result.first.errors).toEqual([
      { path: "steps[999].params.type", line: 3005, column: 38, message: expect.stringMatching(/the value comes from \{\{ size \}\}, which is 2/) },
    ]);
    expect(result.again).toEqual(result.first);
  }, 300_000);

  it("answers 503 BUSY with Retry-After beyond the texts parsed at once, and all others in full", async () => {
    const texts = Array.from({ length: 10 }, (_, i) => bigRecipeYaml(`burst-${i}`, 1000));
    const burst = Promise.all(texts.map((yaml) => kiln.call("validate_recipe", { yaml })));
    // Meanwhile get_pipeline_status counts the parses under way (they take ~100 ms each).
    const during = (await kiln.ok("get_pipeline_status", {})).workers;
    const answers = await burst;
    expect(during).toMatchObject({ max_recipe_jobs: 4 });
    expect(during.recipe_jobs).toBeGreaterThanOrEqual(1);
    expect(during.recipe_jobs).toBeLessThanOrEqual(4);
    expect((await kiln.ok("get_pipeline_status", {})).workers).toMatchObject({ recipe_jobs: 0, max_recipe_jobs: 4 });
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) {
      expect(a.body.error).toMatchObject({ code: "BUSY", details: { limit: 4, retry_after: 1 } });
      expect(a.headers.get("retry-after")).toBe("1");
    }
    for (const a of answers.filter((x) => x.status !== 503)) expect(a).toMatchObject({ status: 200, body: { result: { valid: true, errors: [] } } });
    // Once they are done, the same call goes through.
    expect(await kiln.ok("validate_recipe", { yaml: texts[9] })).toMatchObject({ valid: true });
  }, 300_000);
});
