/**
 * Version control at scale (issue "Version control"), over HTTP to the production build:
 * a 10,000-object project; save after changing one object (p50, new stored bytes); restore of
 * any version (p50); list_versions over 5,000 versions (p50); storage for 1,000 versions
 * compared with one full copy. Run: npx tsx tests/bench/versioning-bench.ts
 */
import Database from "better-sqlite3";
import path from "node:path";
import { startServer } from "../helpers/server";
import { caller, median, ms, timeEach } from "./bench-utils";

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const VERSIONS = Number(process.env.BENCH_VERSIONS ?? 5_000);

const kiln = await startServer();
const call = caller(kiln.url);
const db = new Database(path.join(kiln.home, "kiln.db"), { readonly: true });
const stored = () => db.prepare(`SELECT (SELECT COALESCE(SUM(length(data) + length(children) + length(hash)), 0) FROM SnapshotObject) + (SELECT COALESCE(SUM(length(name) + length(description) + length(root) + 40), 0) FROM Version) AS bytes`).get() as { bytes: number };
try {
  console.log(`building a ${OBJECTS}-object project...`);
  for (let i = 0; i < OBJECTS; i++) await call("create_gameobject", { name: `Obj${i}`, type: i % 3 ? "Cube" : "Sphere", position: { x: i % 100, z: Math.floor(i / 100) } });
  const before = stored().bytes;
  await call("save_version", { name: "full" });
  const fullCopy = stored().bytes - before;
  console.log(`one full copy: ${(fullCopy / 1024).toFixed(0)} KiB`);

  const perSave: number[] = [];
  const saveTimes = await timeEach(1000, async (i) => {
    await call("set_transform", { target: `Obj${i % OBJECTS}`, position: { y: i + 1 } });
    const b = stored().bytes;
    const t = performance.now();
    const r = await call("save_version", { name: `change ${i}` });
    const dt = performance.now() - t;
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    perSave.push(stored().bytes - b);
    return dt;
  });
  // timeEach measured set_transform too; measure the save alone again on a clean loop.
  const saveOnly: number[] = [];
  for (let i = 0; i < 200; i++) {
    await call("set_transform", { target: `Obj${(i * 7) % OBJECTS}`, rotation: { y: i } });
    const t = performance.now();
    await call("save_version", { name: `again ${i}` });
    saveOnly.push(performance.now() - t);
  }
  const storage1000 = stored().bytes - before;
  console.log(`save_version after changing one object: p50 ${ms(median(saveOnly))} (target <= 20 ms); new stored data p50 ${(median(perSave) / 1024).toFixed(2)} KiB (target <= 5 KB)`);
  console.log(`storage for ${1200 + 1} versions: ${(storage1000 / 1024).toFixed(0)} KiB = ${(storage1000 / fullCopy).toFixed(2)}x one full copy (target <= 10x for 1,000)`);
  void saveTimes;

  const ids = (await call("list_versions", { limit: 500 })).body.result.versions.map((v: { version_id: string }) => v.version_id);
  const restore = await timeEach(30, (i) => call("restore_version", { version_id: ids[(i * 37) % ids.length] }));
  const restoreFull = await timeEach(5, () => call("restore_version", { version_id: "v001" }));
  console.log(`restore_version of any version: p50 ${ms(median(restore))}; of the first version: p50 ${ms(median(restoreFull))} (target <= 150 ms)`);

  const total = (await call("list_versions", { limit: 1 })).body.result.total;
  for (let i = total; i < VERSIONS; i++) await call("save_version", { name: `filler ${i}` });
  const list = await timeEach(200, (i) => call("list_versions", { limit: 50, offset: (i * 50) % VERSIONS }));
  console.log(`list_versions over ${Math.max(total, VERSIONS)} versions: p50 ${ms(median(list))} (target <= 10 ms)`);
} finally {
  db.close();
  await kiln.stop();
}
