/**
 * The Prisma client for the configured database: SQLite (embedded default) or PostgreSQL.
 * A Prisma 7 client is generated per provider; both come from one schema, so their model APIs
 * are the same and the rest of the code sees one `Db` type.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import type { KilnConfig } from "../config";
import { onStorageFailure } from "./storage-errors";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client";

export type Db = SqliteClient;

/** Opens the database of a configuration. The SQLite file is put in WAL mode, fsynced per commit. */
export async function openDb(config: KilnConfig): Promise<Db> {
  if (config.provider === "postgresql") {
    const client = new PostgresClient({ adapter: new PrismaPg({ connectionString: config.databaseUrl, max: 10 }) });
    return client as unknown as Db;
  }
  const file = config.databaseUrl.slice("file:".length);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const client = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: file }) });
  // WAL roughly doubles write throughput; synchronous=FULL keeps every answered write on disk.
  await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await client.$executeRawUnsafe("PRAGMA synchronous = FULL");
  await client.$executeRawUnsafe("PRAGMA busy_timeout = 5000");
  // A WAL file never shrinks by itself: after a burst (or a disk that filled up) it keeps its
  // size, so freed space would be used up again. Checkpoints give it back: SQLite's automatic
  // ones every 1,000 pages, with the file cut to WAL_LIMIT after each, plus truncating ones
  // every second after a storage failure until one succeeds (space was freed), and each minute.
  await client.$queryRawUnsafe(`PRAGMA journal_size_limit = ${WAL_LIMIT}`);
  watchWal(client);
  return client;
}

const WAL_LIMIT = 4 * 1024 * 1024;
const CHECKPOINT_EVERY_MS = 60_000;
const RETRY_MS = 1000;

function watchWal(client: SqliteClient) {
  let running = false;
  let retry: NodeJS.Timeout | undefined;
  /** Resolves true when the WAL was checkpointed and cut to nothing. */
  const checkpoint = async (): Promise<boolean> => {
    if (running) return false;
    running = true;
    try {
      const rows = await client.$queryRawUnsafe<{ busy: number | bigint }[]>("PRAGMA wal_checkpoint(TRUNCATE)");
      return Number(rows[0]?.busy ?? 0) === 0;
    } catch {
      return false; // the disk may still be full
    } finally {
      running = false;
    }
  };
  // After a failure, retry every second until a checkpoint goes through (space was freed).
  const afterFailure = () => {
    retry ??= setInterval(() => {
      void checkpoint().then((done) => {
        if (done && retry) {
          clearInterval(retry);
          retry = undefined;
        }
      });
    }, RETRY_MS);
    retry.unref();
  };
  const timer = setInterval(() => void checkpoint(), CHECKPOINT_EVERY_MS);
  timer.unref();
  const stopListening = onStorageFailure(afterFailure);
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    clearInterval(timer);
    if (retry) clearInterval(retry);
    stopListening();
    await disconnect();
  };
}
