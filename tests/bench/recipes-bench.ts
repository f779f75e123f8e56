/**
 * Recipes at scale (issue "Recipes"): a 1,000-step recipe of create_gameobject.
 * 1. In-process: engine overhead per step beyond the tool's own time (target <= 0.3 ms). The
 *    tool's own time is measured inside its handler; "engine" is everything else of
 *    executeRecipe (tRPC + param validation, placeholders, the run loop, run recording).
 * 2. `kiln --run-recipe` as a separate process, start-up included (target <= 3 s).
 * Run: npx tsx tests/bench/recipes-bench.ts   (BENCH_STEPS, BENCH_CLI_RUNS override the sizes)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/config";
import { runRecipe, validateRecipe, type Recipe } from "../../server/recipes";
import { startKiln } from "../../server/runtime";
import { findTool } from "../../server/tools";
import { registryCatalogue } from "../../server/tools/recipe-catalogue";
import { executeRecipe } from "../../server/tools/recipe-runner";
import { median, ms } from "./bench-utils";

const STEPS = Number(process.env.BENCH_STEPS ?? 1000);
const CLI_RUNS = Number(process.env.BENCH_CLI_RUNS ?? 3);
const ROOT = path.resolve(import.meta.dirname, "../..");

/** A recipe of `steps` create_gameobject calls; `tag` keeps object names unique per run. */
function recipeText(steps: number, tag: string): string {
  const lines = [`name: bench-${steps}`, `description: ${steps} objects`, "variables:", `  tag: ${tag}`, "steps:"];
  for (let i = 0; i < steps; i++) {
    lines.push(`  - name: Object ${i}`, "    tool: create_gameobject",
      `    params: { name: "{{ tag }}-${i}", type: Cube, position: { x: ${i % 100}, y: 0, z: ${Math.floor(i / 100)} } }`);
  }
  return lines.join("\n") + "\n";
}

function parse(text: string): Recipe {
  const v = validateRecipe(text, registryCatalogue);
  if (!v.valid || !v.recipe) throw new Error(`bench recipe invalid: ${JSON.stringify(v.errors.slice(0, 3))}`);
  return v.recipe;
}

const work = mkdtempSync(path.join(tmpdir(), "kiln-recipes-bench-"));
try {
  // ---- 1. in-process ------------------------------------------------------------------------
  const kiln = await startKiln(loadConfig({ ...process.env, KILN_HOME: path.join(work, "in-process") }, work));
  const tool = findTool("create_gameobject")!;
  const original = tool.handler;
  let handlerMs = 0;
  tool.handler = async (input, ctx) => {
    const t = performance.now();
    try {
      return await original(input, ctx);
    } finally {
      handlerMs += performance.now() - t;
    }
  };
  let t = performance.now();
  const recipe = parse(recipeText(STEPS, "a"));
  const validateMs = performance.now() - t;
  await executeRecipe(kiln, parse(recipeText(100, "warm")), { source: "cli" }); // JIT warm-up

  handlerMs = 0;
  t = performance.now();
  const run = await executeRecipe(kiln, recipe, { source: "cli" });
  const totalMs = performance.now() - t;
  if (run.status !== "succeeded") throw new Error(`bench run failed: ${JSON.stringify(run.steps.find((s) => s.status === "failed"))}`);
  const stepsMs = run.steps.reduce((sum, s) => sum + s.duration_ms, 0);
  tool.handler = original;

  let noopCalls = 0;
  t = performance.now();
  await runRecipe(recipe, { invoke: async () => ({ n: noopCalls++ }) });
  const bareMs = performance.now() - t;
  await kiln.workspace.flush();
  await kiln.db.$disconnect();

  console.log(`in-process, ${STEPS} steps of create_gameobject (executeRecipe, run recorded):`);
  console.log(`  total ${ms(totalMs)}; the tool's own time (handler, durable log write included) ${ms(handlerMs / STEPS)} per step`);
  console.log(`  engine overhead beyond the tool: ${ms((totalMs - handlerMs) / STEPS)} per step (target <= 0.3 ms), of which`);
  console.log(`    tRPC call + param validation + placeholders: ${ms((stepsMs - handlerMs) / STEPS)}; run loop, events, recording: ${ms((totalMs - stepsMs) / STEPS)}`);
  console.log(`  the engine alone with a no-op tool (runRecipe): ${ms(bareMs / STEPS)} per step`);
  console.log(`  validating the ${STEPS}-step file (YAML, schema, every step's params): ${ms(validateMs)}`);

  // ---- 2. kiln --run-recipe as a process ----------------------------------------------------
  const file = path.join(work, "bench.yaml");
  writeFileSync(file, recipeText(STEPS, "cli"));
  writeFileSync(path.join(work, "one.yaml"), recipeText(1, "one"));
  const cli = (recipeFile: string, home: string) => {
    const started = performance.now();
    const r = spawnSync(process.execPath, [path.join(ROOT, "bin/kiln.js"), "--run-recipe", recipeFile, "--json"], {
      cwd: work, env: { ...process.env, KILN_HOME: path.join(work, home) }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024,
    });
    const wall = performance.now() - started;
    if (r.status !== 0) throw new Error(`kiln --run-recipe exited ${r.status}: ${r.stderr}`);
    return { wall, runMs: JSON.parse(r.stdout).duration_ms as number };
  };
  cli("one.yaml", "cli-warm-up"); // the first run after a change fills tsx's transpile cache
  const startup = cli("one.yaml", "cli-startup");
  const walls: number[] = [];
  const runs: number[] = [];
  for (let i = 0; i < CLI_RUNS; i++) {
    const { wall, runMs } = cli("bench.yaml", `cli-${i}`); // a fresh project database each time
    walls.push(wall);
    runs.push(runMs);
  }
  console.log(`kiln --run-recipe (a separate process, fresh project data, start-up included):`);
  console.log(`  1-step recipe: ${ms(startup.wall)} wall (start-up: node, tsx, registry, migrations)`);
  console.log(`  ${STEPS}-step recipe: median ${ms(median(walls))} wall (target <= 3 s); runs ${walls.map((w) => ms(w)).join(", ")}`);
  console.log(`    of which the run itself: median ${ms(median(runs))}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
