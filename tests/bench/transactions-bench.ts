/**
 * Transaction figures over HTTP: rollback of a 1,000-operation transaction on a 10,000-object
 * project (p50); begin and commit (p50); the latency an open transaction adds to an editor call.
 * Run: npx tsx tests/bench/transactions-bench.ts
 */
import { startServer } from "../helpers/server";
import { caller, median, ms, timeEach } from "./bench-utils";

const kiln = await startServer();
try {
  const call = caller(kiln.url);
  for (let i = 0; i < 10_000; i++) await call("create_gameobject", { name: `Obj${i}`, type: "Cube", position: { x: i } });

  const beginCommit = { begin: [] as number[], commit: [] as number[] };
  for (let i = 0; i < 200; i++) {
    let t = performance.now();
    await call("begin_transaction", { name: `bc${i}` });
    beginCommit.begin.push(performance.now() - t);
    t = performance.now();
    await call("commit_transaction");
    beginCommit.commit.push(performance.now() - t);
  }
  console.log(`begin_transaction p50 ${ms(median(beginCommit.begin))}, commit_transaction p50 ${ms(median(beginCommit.commit))} (target <= 2 ms each)`);

  const outside = await timeEach(500, (i) => call("set_transform", { target: `Obj${i}`, position: { y: 1 } }));
  await call("begin_transaction", { name: "overhead" });
  const inside = await timeEach(500, (i) => call("set_transform", { target: `Obj${i}`, position: { y: 2 } }));
  await call("commit_transaction");
  const outside2 = await timeEach(500, (i) => call("set_transform", { target: `Obj${i}`, position: { y: 3 } }));
  const base = median([...outside, ...outside2]);
  console.log(`set_transform p50 outside ${ms(base)}, inside an open transaction ${ms(median(inside))}: +${(((median(inside) / base) - 1) * 100).toFixed(1)}% (target <= 10%)`);

  const rollbacks: number[] = [];
  for (let round = 0; round < 7; round++) {
    await call("begin_transaction", { name: `rb${round}` });
    for (let i = 0; i < 1000; i++) await call("set_transform", { target: `Obj${(i * 13 + round) % 10_000}`, rotation: { y: i } });
    const t = performance.now();
    const r = await call("rollback_transaction");
    rollbacks.push(performance.now() - t);
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  }
  console.log(`rollback of 1,000 operations on 10,000 objects: p50 ${ms(median(rollbacks))} (target <= 100 ms)`);
} finally {
  await kiln.stop();
}
