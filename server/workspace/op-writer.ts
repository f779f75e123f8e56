/**
 * Group commit for the operation log: operations applied in memory are written in batches, one
 * database transaction per batch, and each caller is answered only once its batch is durable.
 * Under load this turns N fsyncs into one; alone, a batch is a single operation.
 */
import type { Db } from "../db/client";
import { Prisma } from "../db/generated/sqlite/client";
import { blobParts } from "./op-blobs";
import type { ActorColumns } from "../teams/attribution";

export interface OperationRow extends ActorColumns {
  seq: number;
  branch: string;
  kind: string;
  tool: string;
  app: string | null;
  params: string;
  changes: string;
  /** Long strings pulled out of `changes` (./op-blobs.ts), written as OperationBlob parts first. */
  blob: string[] | null;
  transactionId: string | null;
  /** Where the call came from (server/events/source.ts): http, mcp, recipe, live, cli or internal. */
  source: string | null;
  createdAt: Date;
}

/** Characters per OperationBlob part written here (readers join parts of any size). */
const WRITE_PART = 512 * 1024;

interface Pending { row: OperationRow; resolve: () => void; reject: (e: unknown) => void }

export class OperationWriter {
  private queue: Pending[] = [];
  private running: Promise<void> | null = null;

  /** `onFailure` gets the rows of a failed batch (and everything queued after it) to revert them. */
  constructor(private db: Db, private onFailure: (rows: OperationRow[]) => void) {}

  /** Queues a row; resolves when it is committed. */
  write(row: OperationRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Resolves when nothing is queued or being written. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Let the callers of this tick join the first batch.
    await new Promise((r) => setImmediate(r));
    while (this.queue.length) {
      const batch = this.queue.splice(0, 500);
      try {
        const parts = new Map<number, number>();
        for (const p of batch) if (p.row.blob) parts.set(p.row.seq, await this.writeBlob(p.row.seq, p.row.blob));
        await this.db.$executeRaw(insertRows(batch.map((p) => p.row), parts));
        for (const p of batch) p.resolve();
      } catch (e) {
        // Later operations were planned on top of the failed ones: revert and fail them all.
        const failed = batch.concat(this.queue.splice(0));
        this.onFailure(failed.map((p) => p.row));
        for (const p of failed) p.reject(e);
      }
    }
    this.running = null;
  }

  /**
   * Writes a row's blob ahead of it, one statement per part, so that the service answers other
   * requests in between. Parts left by a failed write of the same seq are replaced; a crash before
   * the row is written leaves parts that the next start sweeps (sweepBlobs).
   */
  private async writeBlob(seq: number, blob: string[]): Promise<number> {
    await this.db.$executeRaw`DELETE FROM "OperationBlob" WHERE "seq" = ${seq}`;
    // Parts of WRITE_PART characters: Prisma turns each statement's parameters into JSON and back
    // on the event loop (~10 ms per MiB here), and each statement also syncs the WAL, so smaller
    // parts hold other requests less long each but cost more syncs; 512 KiB measured best.
    const parts = blobParts(blob, WRITE_PART);
    for (let i = 0; i < parts.length; i++) {
      await this.db.$executeRaw`INSERT INTO "OperationBlob" ("seq", "part", "data") VALUES (${seq}, ${i}, ${parts[i]})`;
      // SQLite's driver is synchronous and resolves in a microtask: without a macrotask turn here,
      // the parts would run back to back and requests would wait for all of them.
      await new Promise((r) => setImmediate(r));
    }
    return parts.length;
  }
}

/**
 * One multi-row INSERT. Raw SQL because this is the hottest write in Kiln and the query builder
 * costs more than the insert itself; Prisma's sql tag keeps it parameterised on both databases.
 */
function insertRows(rows: OperationRow[], blobParts: Map<number, number>) {
  const values = rows.map((r) => Prisma.sql`(${r.seq}, ${r.branch}, ${r.kind}, ${r.tool}, ${r.app}, ${r.params}, ${r.changes}, ${r.transactionId}, ${r.source}, ${blobParts.get(r.seq) ?? null}, ${r.createdAt}, ${r.actorId}, ${r.actorName}, ${r.actorClient}, ${r.actorClientName}, ${r.actorToken}, ${r.actorSession})`);
  return Prisma.sql`INSERT INTO "Operation" ("seq", "branch", "kind", "tool", "app", "params", "changes", "transactionId", "source", "blobParts", "createdAt", "actorId", "actorName", "actorClient", "actorClientName", "actorToken", "actorSession") VALUES ${Prisma.join(values)}`;
}
