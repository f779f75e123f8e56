/**
 * Live Blender figures (issue "Live Blender", Performance), each beside the same work on the
 * embedded engine: create_gameobject p50 at one connection, a 1,000-step recipe, a hand edit in
 * Blender until Kiln shows it (p50), and restoring a 1,000-object version into live Blender.
 * Needs Blender (apt: blender). Run: npx tsx tests/bench/live-blender-bench.ts
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startServer, type KilnServer } from "../helpers/server";
import { blenderConnection, startLiveBlender, until } from "../interop/live";
import { caller, median, ms, timeEach } from "./bench-utils";

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-live-bench-"));
  mkdirSync(path.join(dir, "recipes"));
  const steps = Array.from({ length: 1000 }, (_, i) =>
    `  - { name: s${i}, tool: create_gameobject, params: { name: "R${i}", type: Empty, position: { x: ${i % 40}, y: ${Math.floor(i / 40)}, z: 0 }, app: blender } }`);
  writeFileSync(path.join(dir, "recipes/thousand.yaml"), `name: thousand\ndescription: 1,000 steps\nsteps:\n${steps.join("\n")}\n`);
  return dir;
}

async function measure(kiln: KilnServer, label: string, live: boolean) {
  const call = caller(kiln.url);
  const create = await timeEach(200, (i) => call("create_gameobject", { app: "blender", name: `C${i}`, type: "Cube" }));
  const t0 = performance.now();
  const run = await call("run_recipe", { recipe: "thousand" });
  const recipe = performance.now() - t0;
  if (run.body.result?.status !== "succeeded") throw new Error(`recipe ${JSON.stringify(run.body).slice(0, 300)}`);
  // A version with 1,000 objects more than the current state, restored in one call.
  const v = await call("save_version", { name: "thousand" });
  for (let i = 0; i < 1000; i++) await call("delete_object", { app: "blender", target: `R${i}` });
  const t1 = performance.now();
  const restored = await call("restore_version", { version_id: v.body.result.version_id });
  const restore = performance.now() - t1;
  if (restored.status !== 200) throw new Error(`restore ${JSON.stringify(restored.body)}`);
  console.log(`${label}: create_gameobject p50 ${ms(median(create))}; 1,000-step recipe ${ms(recipe)}; restore of a 1,000-object version ${ms(restore)}`);
  void live;
  return { create: median(create), recipe, restore };
}

async function main() {
  const embedded = await startServer({ cwd: project() });
  const e = await measure(embedded, "embedded", false);
  await embedded.stop();

  const dir = project();
  const kiln = await startServer({ cwd: dir });
  const blender = startLiveBlender(kiln, { cwd: dir });
  try {
    await until(async () => (await blenderConnection(kiln)) === "live", 120_000, "Blender to connect");
    const l = await measure(kiln, "live blender", true);
    // Hand edits: time from the edit in Blender to Kiln's get_scene showing it.
    const call = caller(kiln.url);
    await call("create_gameobject", { app: "blender", name: "Nudged", type: "Empty" });
    const edits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      const { x } = await blender.command("nudge");
      await until(async () => {
        const s = await call("get_scene", { app: "blender" });
        return Math.abs(s.body.result.objects.find((o: any) => o.name === "Nudged").position.x - x) < 1e-5;
      }, 10_000, "the edit in Kiln");
      edits.push(performance.now() - t);
    }
    console.log(`live blender: hand edit visible in Kiln p50 ${ms(median(edits))} (includes the test driver's file round trip)`);
    console.log(`ratios live/embedded: create_gameobject ${(l.create / e.create).toFixed(1)}x, recipe ${(l.recipe / e.recipe).toFixed(1)}x, restore ${(l.restore / e.restore).toFixed(1)}x`);
    console.log(`targets: create p50 <= 10 ms: ${l.create <= 10 ? "met" : "MISSED"}; recipe <= 5 s: ${l.recipe <= 5000 ? "met" : "MISSED"}; edit p50 <= 200 ms: ${median(edits) <= 200 ? "met" : "MISSED"}; restore <= 2 s: ${l.restore <= 2000 ? "met" : "MISSED"}`);
  } finally {
    await blender.stop();
    await kiln.stop();
  }
}

await main();
