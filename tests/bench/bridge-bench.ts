/**
 * The bridge under a hostile or slow app (issue 26), against the production service (run `npm run
 * build` first). A second client calls get_transaction_status every 20 ms (tests/helpers/watch.ts)
 * while, in turn: an app sends a 200,000-deep text frame ten times (refused before parsing), an app
 * sends a valid 15 MB edit of 50,000 objects, a live Blender takes 3 s to answer each apply while a
 * client writes to Unity and saves versions (their max wait is the figure: it must not be the 3 s).
 * Prints p50 / p99 / max of the poller and the service's largest RSS per case; nothing is asserted.
 * Run: npx tsx tests/bench/bridge-bench.ts
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { BridgePeer, type Rec } from "../helpers/bridge-peer";
import { startServer } from "../helpers/server";
import { underWatch } from "../helpers/watch";
import { caller, percentile } from "./bench-utils";

const kiln = await startServer();
const { token } = JSON.parse(readFileSync(path.join(kiln.home, "bridge.json"), "utf8"));
const url = `${kiln.url.replace("http", "ws")}/bridge`;
const call = caller(kiln.url, 4);

const report = (name: string, w: { latencies: number[]; maxRss: number }, extra = "") =>
  console.log(`${name.padEnd(52)} poller p50 ${percentile(w.latencies, 50).toFixed(1)} / p99 ${percentile(w.latencies, 99).toFixed(1)} / max ${Math.max(...w.latencies).toFixed(1)} ms ` +
    `over ${w.latencies.length} calls; RSS max ${(w.maxRss / 2 ** 20).toFixed(0)} MiB${extra}`);

const obj = (name: string): Rec => ({
  type: "object", id: `object/blender/Main/${name}`, app: "blender", scene: "Main", name, kind: "empty", primitive: null, mesh: null,
  parent: null, material: null, light: null, position: { x: 1, y: 2, z: 3 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 }, keyframes: [], modifiers: [],
});

try {
  await new Promise((r) => setTimeout(r, 2000));
  // 1. Deep frames: each is refused after a scan of its bytes, before JSON.parse.
  report("10 × a 200,000-deep text frame", await underWatch(kiln, async () => {
    for (let i = 0; i < 10; i++) {
      const p = await BridgePeer.connect({ url, token });
      p.sendRaw(`{"type":"edit","id":"x","records":${"[".repeat(200_000)}${"]".repeat(200_000)}}`);
      await p.closed;
    }
  }));

  // 2. A valid big edit: 50,000 objects in one message (14.6 MiB; 55,000 would pass the 16 MiB frame limit).
  const peer = await BridgePeer.connect({ url, token });
  await new Promise((r) => setTimeout(r, 500));
  const records = Array.from({ length: 50_000 }, (_, i) => obj(`E${i}`));
  const bytes = Buffer.byteLength(JSON.stringify({ type: "edit", id: "big", records, deleted: [] }));
  report(`an edit of 50,000 objects (${(bytes / 1e6).toFixed(1)} MB)`, await underWatch(kiln, () =>
    Promise.race([peer.edit(records), peer.closed.then((c) => { throw new Error(`Kiln closed the connection: ${c.code} ${c.reason}`); })])));

  // 3. A slow app: other clients' writes and saves while each Blender apply takes 3 s.
  peer.delay = 3000;
  const waits: number[] = [];
  const w = await underWatch(kiln, async () => {
    const slow = call("create_gameobject", { app: "blender", name: "Slow", type: "Cube" });
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 5; i++) {
      let t = performance.now();
      await call("create_gameobject", { app: "unity", name: `U${i}`, type: "Cube" });
      waits.push(performance.now() - t);
      t = performance.now();
      await call("save_version", { name: `v${i}` });
      waits.push(performance.now() - t);
    }
    await slow;
  });
  report("writes to Unity and save_version while Blender takes 3 s", w, `; their max wait ${Math.max(...waits).toFixed(0)} ms`);
  peer.kill();
} finally {
  await kiln.stop();
}
