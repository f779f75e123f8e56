// WAL checkpoints of the SQLite database, on their own thread and connection (wal-checkpointer.ts
// says why). Plain JavaScript, started as it is: nothing here is bundled by Next.js.
import { statSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { file, limit, pollMs, everyMs } = workerData;
const db = new Database(file);
db.pragma("busy_timeout = 1000");
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

parentPort.on("message", (message) => {
  if (message === "failure") failing = true;
  if (message === "close") {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
