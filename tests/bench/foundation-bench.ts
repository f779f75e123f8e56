/**
 * Foundation figures over HTTP to the production build (load generator on the same 2-core
 * machine): create_gameobject p50 at 1 connection and throughput at 10 connections with durable
 * SQLite writes; get_scene of a 1,000-object scene p50; take_screenshot of a 100-object scene at
 * 1920x1080, and what another client waits meanwhile. Run: npx tsx tests/bench/foundation-bench.ts
 */
import { startServer } from "../helpers/server";
import { caller, median, ms, percentile, timeEach } from "./bench-utils";
import { underWatch } from "../helpers/watch";

const kiln = await startServer();
try {
  const one = caller(kiln.url, 1);
  for (let i = 0; i < 200; i++) await one("create_gameobject", { name: `Warm${i}`, type: "Cube", app: "godot" });
  const single = await timeEach(1000, (i) => one("create_gameobject", { name: `One${i}`, type: "Cube", position: { x: i } }));
  console.log(`create_gameobject, 1 connection: p50 ${ms(median(single))}, p95 ${ms(percentile(single, 95))} (target p50 <= 2 ms)`);

  const ten = caller(kiln.url, 10);
  const total = 5000;
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: 10 }, async () => {
    while (next < total) {
      const i = next++;
      const r = await ten("create_gameobject", { name: `Ten${i}`, type: "Sphere", app: "blender" });
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    }
  }));
  const rate = total / ((performance.now() - start) / 1000);
  console.log(`create_gameobject, 10 connections: ${rate.toFixed(0)} calls/s (target >= 1,000/s; SQLite WAL, synchronous=FULL)`);

  await one("create_scene", { name: "Thousand" });
  for (let i = 0; i < 1000; i++) await one("create_gameobject", { name: `T${i}`, type: "Cube", position: { x: i % 30, z: Math.floor(i / 30) } });
  const getScene = await timeEach(200, () => one("get_scene", {}));
  console.log(`get_scene of a 1,000-object scene: p50 ${ms(median(getScene))} (target <= 10 ms)`);

  await one("create_scene", { name: "Hundred" });
  await one("create_light", { name: "Sun", type: "Directional", rotation: { x: 50, y: -30 } });
  for (let i = 0; i < 100; i++) await one("create_gameobject", { name: `S${i}`, type: i % 2 ? "Sphere" : "Cube", position: { x: (i % 10) - 4.5, y: Math.floor(i / 10) * 0.8, z: 2 } });
  await one("take_screenshot", { width: 1920, height: 1080 }); // starts the renderer threads
  const watched = await underWatch(kiln, () => timeEach(15, () => one("take_screenshot", { width: 1920, height: 1080 })));
  const shots = watched.result;
  console.log(`take_screenshot of a 100-object scene at 1920x1080: p50 ${ms(median(shots))} (target <= 300 ms)`);
  console.log(`  another client's get_transaction_status meanwhile: p99 ${ms(watched.p99)}, max ${ms(Math.max(...watched.latencies))} (target <= 50 ms)`);
} finally {
  await kiln.stop();
}
