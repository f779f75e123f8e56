/**
 * WAL checkpoints for the embedded SQLite database, off the event loop.
 *
 * SQLite's driver is synchronous. Left to itself, SQLite checkpoints inside whichever commit makes
 * the WAL pass 1,000 pages, copying megabytes into the database file and fsyncing it while every
 * other client waits (100-250 ms per checkpoint in a big save). So the service's connection has
 * automatic checkpoints off, and a worker thread with its own connection checkpoints instead:
 * PASSIVE (it never blocks the service's writes) whenever the WAL passes WAL_LIMIT, and each minute;
 * after a storage failure, TRUNCATE every poll until one succeeds, so space freed on a full disk is
 * given back (the WAL never shrinks by itself). journal_size_limit cuts the file back to WAL_LIMIT
 * when a writer starts it over.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { onStorageFailure } from "./storage-errors";

export const WAL_LIMIT = 4 * 1024 * 1024;
const POLL_MS = 250;
const EVERY_MS = 60_000;

function workerScript(): string | null {
  const file = path.join(process.env.KILN_ROOT ?? process.cwd(), "server/db/checkpoint-worker.mjs");
  return existsSync(file) ? file : null;
}

/** Starts checkpointing `file` on a worker thread; `client.$disconnect` stops it first. */
export async function checkpointOffThread(client: SqliteClient, file: string): Promise<void> {
  await client.$queryRawUnsafe(`PRAGMA journal_size_limit = ${WAL_LIMIT}`);
  const script = workerScript();
  // Without the script (an unusual install), SQLite's own checkpoints keep the WAL bounded.
  if (!script) return;
  const worker = new Worker(script, { workerData: { file: path.resolve(file), limit: WAL_LIMIT, pollMs: POLL_MS, everyMs: EVERY_MS } });
  worker.unref();
  worker.on("error", (e) => console.error(`kiln: the WAL checkpoint thread failed (${e.message}); SQLite checkpoints by itself again`));
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  // A thread that died unasked: SQLite's own checkpoints take over again.
  void exited.then(async () => {
    if (!closing) await client.$executeRawUnsafe("PRAGMA wal_autocheckpoint = 1000").catch(() => undefined);
  });
  await client.$executeRawUnsafe("PRAGMA wal_autocheckpoint = 0");
  const stopListening = onStorageFailure(() => worker.postMessage("failure"));
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    closing = true;
    stopListening();
    worker.ref(); // keep the process alive until the thread has closed its connection
    worker.postMessage("close");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))]);
    clearTimeout(timer);
    await disconnect();
  };
}
