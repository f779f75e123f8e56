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
 *
 * The same thread bulk-inserts the packs of a big save (`offThreadInsert`): better-sqlite3 runs
 * each statement synchronously, so 35 MB of packs inserted by the service held the event loop
 * for about a second in statements of a few ms each plus a commit's fsync each.
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

/** A row of SnapshotObject written ahead of the save that references it (a pack). */
export type UnreferencedRow = { hash: string; data: string };
/**
 * Inserts rows off the event loop with `refs`, skipping stored hashes; resolves to the hashes it
 * wrote, which, with `pending`, are also listed as JSON under that Setting key in the same
 * transaction. Only `sync` batches are fsynced; one fsync of the WAL makes earlier ones durable too.
 */
export type OffThreadInsert = (rows: UnreferencedRow[], options: { sync: boolean; refs: number; pending?: string }) => Promise<string[]>;
const inserters = new WeakMap<object, OffThreadInsert>();

/** The off-thread inserter of a SQLite client, while its thread runs (none for PostgreSQL). */
export function offThreadInsert(client: object): OffThreadInsert | undefined {
  return inserters.get(client);
}

/** An error from the thread, with the SQLite code storage-errors.ts classifies (SQLITE_FULL...). */
function threadError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
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
  const pending = new Map<number, { resolve: (written: string[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  worker.on("message", (m: { id: number; written?: string[]; error?: string; code?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if (m.error !== undefined) p.reject(threadError(m.error, m.code));
    else p.resolve(m.written ?? []);
  });
  void exited.then(() => {
    inserters.delete(client);
    for (const p of pending.values()) p.reject(new Error("The SQLite writer thread stopped."));
    pending.clear();
  });
  inserters.set(client, (rows, options) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.ref(); // an awaited insert keeps the process alive
    worker.postMessage({ kind: "insert", id, rows, ...options });
  }));
  const stopListening = onStorageFailure(() => worker.postMessage("failure"));
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    closing = true;
    inserters.delete(client);
    stopListening();
    worker.ref(); // keep the process alive until the thread has closed its connection
    worker.postMessage("close");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))]);
    clearTimeout(timer);
    await disconnect();
  };
}
