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
import { checkpointOffThread } from "./wal-checkpointer";
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
  // Checkpoints run on their own thread: SQLite's own ones would stall the event loop.
  await checkpointOffThread(client, file);
  return client;
}
