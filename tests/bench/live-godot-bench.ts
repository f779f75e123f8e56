/**
 * Live Godot figures (issue "Live Godot", Performance), beside the embedded engine and the live
 * Blender bridge, as ratios: create_gameobject p50 at one connection, a 1,000-step recipe, and an
 * edit inside the editor until Kiln shows it (p50). Needs godot3-server (and Blender for its column).
 * Run: npx tsx tests/bench/live-godot-bench.ts
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AppId } from "../../server/scene/types";
import { startServer, type KilnServer } from "../helpers/server";
import { blenderConnection, startLiveBlender, until } from "../interop/live";
import { godotConnection, startLiveGodot } from "../interop/live-godot";
import { caller, median, ms, timeEach } from "./bench-utils";

function project(app: AppId): string {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-godot-bench-"));
  mkdirSync(path.join(dir, "recipes"));
  const steps = Array.from({ length: 1000 }, (_, i) =>
    `  - { name: s${i}, tool: create_gameobject, params: { name: "R${i}", type: Empty, position: { x: ${i % 40}, y: 0, z: ${Math.floor(i / 40)} }, app: ${app} } }`);
  writeFileSync(path.join(dir, "recipes/thousand.yaml"), `name: thousand\ndescription: 1,000 steps\nsteps:\n${steps.join("\n")}\n`);
  return dir;
}

interface Figures { create: number; recipe: number; edit?: number }

async function measure(kiln: KilnServer, app: AppId, label: string, editor?: { command(name: string): Promise<any> }): Promise<Figures> {
  const call = caller(kiln.url);
  const create = await timeEach(200, (i) => call("create_gameobject", { app, name: `C${i}`, type: "Cube" }));
  const t0 = performance.now();
  const run = await call("run_recipe", { recipe: "thousand" });
  const recipe = performance.now() - t0;
  if (run.body.result?.status !== "succeeded") throw new Error(`recipe ${JSON.stringify(run.body).slice(0, 300)}`);
  let edit: number | undefined;
  if (editor) {
    await call("create_gameobject", { app, name: "Nudged", type: "Empty" });
    const edits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      const { x } = await editor.command("nudge");
      await until(async () => {
        const s = await call("get_scene", { app });
        return Math.abs(s.body.result.objects.find((o: any) => o.name === "Nudged").position.x - x) < 1e-5;
      }, 10_000, "the edit in Kiln");
      edits.push(performance.now() - t);
    }
    edit = median(edits);
  }
  console.log(`${label}: create_gameobject p50 ${ms(median(create))}; 1,000-step recipe ${ms(recipe)}${edit !== undefined ? `; editor edit visible in Kiln p50 ${ms(edit)} (includes the driver's file round trip)` : ""}`);
  return { create: median(create), recipe, edit };
}

async function main() {
  const embedded = await startServer({ cwd: project("godot") });
  const e = await measure(embedded, "godot", "embedded godot");
  await embedded.stop();

  const dir = project("godot");
  const kiln = await startServer({ cwd: dir });
  const godot = startLiveGodot(kiln, path.join(dir, "game"), { cwd: dir });
  let g: Figures;
  try {
    await until(async () => (await godotConnection(kiln)) === "live", 60_000, "Godot to connect");
    g = await measure(kiln, "godot", "live godot", godot);
  } finally {
    await godot.stop();
    await kiln.stop();
  }

  let b: Figures | undefined;
  if (!process.env.KILN_BENCH_SKIP_BLENDER && spawnSync("sh", ["-c", "command -v blender"]).status === 0) {
    const bdir = project("blender");
    const bk = await startServer({ cwd: bdir });
    const blender = startLiveBlender(bk, { cwd: bdir });
    try {
      await until(async () => (await blenderConnection(bk)) === "live", 120_000, "Blender to connect");
      b = await measure(bk, "blender", "live blender", blender);
    } finally {
      await blender.stop();
      await bk.stop();
    }
  }
  const ratio = (a: number, c: number) => `${(a / c).toFixed(1)}x`;
  console.log(`ratios live godot / embedded: create_gameobject ${ratio(g.create, e.create)}, recipe ${ratio(g.recipe, e.recipe)}`);
  if (b) console.log(`ratios live godot / live blender: create_gameobject ${ratio(g.create, b.create)}, recipe ${ratio(g.recipe, b.recipe)}, editor edit ${ratio(g.edit!, b.edit!)}`);
  console.log(`targets: create p50 <= 10 ms: ${g.create <= 10 ? "met" : "MISSED"}; recipe <= 10 s: ${g.recipe <= 10_000 ? "met" : "MISSED"}; edit p50 <= 200 ms: ${g.edit! <= 200 ? "met" : "MISSED"}`);
}

await main();
