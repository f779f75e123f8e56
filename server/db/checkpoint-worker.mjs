// WAL checkpoints of the SQLite database, and bulk inserts of snapshot packs, on their own thread
// and connection (wal-checkpointer.ts says why). Plain JavaScript, started as it is: nothing here
// is bundled by Next.js.
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, limit, pollMs, everyMs } = workerData;
const db = new Database(file);
db.pragma("busy_timeout = 5000");
// Packs of a big save: inserted already counted (refs = 1, their one parent is the save's), each
// batch listing what it wrote under a `pending` Setting key in the same transaction, so that a
// save cut off by a crash can be undone at the next start (object-store.ts, `sweep`). Nothing
// references them until the save's transaction commits on the service's connection, so their
// batches commit without an fsync (synchronous = NORMAL), except a save's last one (`sync`): its
// fsync of the WAL makes every earlier frame durable too, here and off the event loop. The save's
// own commit (synchronous = FULL) comes after them in the same WAL anyway, so a save is never
// durable without its packs; the last batch's fsync only keeps that commit's fsync small.
let insert, listPending;
let failing = false;
let last = Date.now();

const walSize = () => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

/** True when every frame of the WAL is in the database file (TRUNCATE: and the file is cut to nothing). */
function checkpoint(mode) {
  try {
    const [r] = db.pragma(`wal_checkpoint(${mode})`);
    return r.busy === 0 && r.log === r.checkpointed;
  } catch {
    return false; // the disk may still be full
  }
}

const timer = setInterval(() => {
  if (failing) {
    // After a storage failure: until a truncating checkpoint goes through (space was freed).
    if (checkpoint("TRUNCATE")) failing = false;
  } else if (walSize() > limit || Date.now() - last > everyMs) {
    checkpoint("PASSIVE");
    last = Date.now();
  }
}, pollMs);

/** Inserts packs (skipping hashes already stored) with `refs`; answers the hashes it wrote. */
function insertPacks({ id, rows, sync, refs, pending }) {
  try {
    db.pragma(`synchronous = ${sync ? "FULL" : "NORMAL"}`);
    insert ??= db.prepare(`INSERT INTO "SnapshotObject" ("hash", "data", "refs", "children") VALUES (?, ?, ?, '[]') ON CONFLICT ("hash") DO NOTHING`);
    listPending ??= db.prepare(`INSERT INTO "Setting" ("key", "value") VALUES (?, ?)`);
    const written = db.transaction(() => {
      const fresh = rows.filter((r) => insert.run(r.hash, r.data, refs).changes === 1).map((r) => r.hash);
      if (pending && fresh.length) listPending.run(pending, JSON.stringify(fresh));
      return fresh;
    })();
    parentPort.postMessage({ id, written });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error?.message ?? error), code: error?.code });
  }
}

parentPort.on("message", (message) => {
  if (message?.kind === "insert") insertPacks(message);
  if (message === "failure") failing = true;
  if (message === "close") {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
