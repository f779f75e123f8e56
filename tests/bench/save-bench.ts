/**
 * save_version of a big scene (issue "Hardening"), over HTTP to the production build, on SQLite
 * and on PostgreSQL: the first save of a BENCH_OBJECTS-object scene (default 100,000) end to end,
 * with the service's own split into hashing and database time; a save after one change (p50);
 * and, during the big save, the answer times of a second client calling a cheap tool (list_objects of a small app) every 20 ms
 * (p99: how long the save kept others waiting). The service's CPU time beside the wall times: on
 * a shared machine the wall times mostly measure waiting for a core (see `uptime` before trusting them).
 * The scene is built in-process (100,000 create_gameobject calls over HTTP would take longer
 * than the rest of the bench) as 20 logged groups of records, then served by a real `kiln`.
 * Run: npx tsx tests/bench/save-bench.ts   (BENCH_PROVIDERS=sqlite,postgresql BENCH_OBJECTS=N)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/config";
import { startKiln } from "../../server/runtime";
import { applyOperation } from "../../server/scene/apply";
import { initialState } from "../../server/scene/state";
import type { Change, SceneEntity } from "../../server/scene/types";
import { createPgDatabase, ROOT, startServer, type Provider } from "../helpers/server";
import { caller, median, ms, percentile } from "./bench-utils";

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 100_000);
const PROVIDERS = (process.env.BENCH_PROVIDERS ?? "sqlite,postgresql").split(",") as Provider[];
const GROUP = 5000;

/** OBJECTS object records, as create_gameobject makes them, in the unity app's Main scene. */
function objectRecords(): SceneEntity[] {
  const scratch = initialState();
  const template = (type: string) => applyOperation(scratch, { tool: "create_gameobject", app: "unity", params: { name: `T${type}`, type } }).changes
    .find((c) => c.after?.type === "object")!.after as SceneEntity & { name: string; position: object };
  const templates = [template("Cube"), template("Sphere"), template("Empty")];
  return Array.from({ length: OBJECTS }, (_, i) => {
    const t = templates[i % 3];
    const name = `Obj${i}`;
    return { ...t, id: t.id.replace(/[^/]+$/, encodeURIComponent(name)), name, position: { x: i % 100, y: 0, z: Math.floor(i / 100) } } as SceneEntity;
  });
}

async function build(home: string, databaseUrl: string | undefined) {
  const env = { ...process.env, KILN_HOME: home, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  if (!databaseUrl) delete env.DATABASE_URL;
  const kiln = await startKiln(loadConfig(env, ROOT), ROOT);
  const records = objectRecords();
  for (let i = 0; i < records.length; i += GROUP) {
    const changes: Change[] = records.slice(i, i + GROUP).map((r) => ({ id: r.id, before: null, after: r }));
    await kiln.workspace.exclusive(() => kiln.workspace.applyGroup("import", "create_gameobject", { bench: true }, changes));
  }
  // Hand the project over to the service: flush, close, release the lock.
  await kiln.workspace.flush();
  await kiln.db.$disconnect();
  await kiln.ownership.release();
}

async function bench(provider: Provider) {
  const home = mkdtempSync(path.join(tmpdir(), "kiln-save-bench-"));
  const pgDb = provider === "postgresql" ? await createPgDatabase() : undefined;
  try {
    let t = performance.now();
    await build(home, pgDb?.url);
    console.log(`[${provider}] built ${OBJECTS} objects in-process in ${ms(performance.now() - t)}`);
    const kiln = await startServer({ home, databaseUrl: pgDb?.url });
    try {
      const call = caller(kiln.url);
      const probe = caller(kiln.url);
      const count = (await call("get_pipeline_status")).body.result.apps.find((a: { app: string }) => a.app === "unity").objects;
      if (count !== OBJECTS) throw new Error(`expected ${OBJECTS} objects, the service has ${count}`);

      // The second client: a cheap call every 20 ms for as long as the save runs.
      const answers: number[] = [];
      let saving = true;
      const probing = (async () => {
        while (saving) {
          const s = performance.now();
          await probe("list_objects", { app: "godot" });
          answers.push(performance.now() - s);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      t = performance.now();
      const first = await call("save_version", { name: "first" });
      const firstMs = performance.now() - t;
      saving = false;
      await probing;
      if (first.status !== 200) throw new Error(JSON.stringify(first.body));
      const split = /saved v\d+ \((\d+) changed records, (\d+) new objects\): hashing (\d+) ms, database (\d+) ms \(CPU: hashing (\d+) ms, database (\d+) ms\)/.exec(kiln.log());
      console.log(`[${provider}] first save_version of ${OBJECTS} objects: ${ms(firstMs)} end to end (target <= 2000 ms)` +
        (split ? `; hashing ${split[3]} ms, database ${split[4]} ms (${split[2]} objects stored); the service's CPU time: hashing ${split[5]} ms, database ${split[6]} ms` : ""));
      console.log(`[${provider}] second client during that save: ${answers.length} calls, p50 ${ms(median(answers))}, p99 ${ms(percentile(answers, 99))}, max ${ms(Math.max(...answers))} (target p99 <= 50 ms)`);

      const again: number[] = [];
      for (let i = 0; i < 30; i++) {
        await call("set_transform", { target: `Obj${(i * 7919) % OBJECTS}`, position: { y: i + 1 } });
        const s = performance.now();
        const r = await call("save_version", { name: `change ${i}` });
        again.push(performance.now() - s);
        if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      }
      console.log(`[${provider}] save_version after one change at ${OBJECTS} objects: p50 ${ms(median(again))}, p90 ${ms(percentile(again, 90))} (target <= 20 ms)`);
    } catch (error) {
      console.error(`[${provider}] the bench broke off; the service said:\n${kiln.log().slice(-3000)}`);
      throw error;
    } finally {
      await kiln.stop();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    await pgDb?.drop();
  }
}

console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(" ")} on ${availableParallelism()} cores`);
for (const provider of PROVIDERS) await bench(provider);
process.exit(0);
