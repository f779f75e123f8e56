/**
 * Applies the Prisma migrations under prisma/ at start-up, with the raw database driver.
 *
 * Bookkeeping is Prisma's own `_prisma_migrations` table (same columns, sha256 checksum of
 * migration.sql), so a database migrated here is one `prisma migrate deploy` also accepts,
 * and vice versa. Prisma 7's own migrate needs an engine download, which we cannot rely on.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { KilnConfig } from "../config";

interface Migration { name: string; sql: string; checksum: string }

/** The migrations folder of a provider, relative to the project root. */
export function migrationsDir(root: string, provider: KilnConfig["provider"]): string {
  return path.join(root, provider === "sqlite" ? "prisma/migrations" : "prisma/postgresql/migrations");
}

function readMigrations(dir: string): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const SQLITE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
  "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
  "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`;
const PG_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`;

function checkApplied(applied: Map<string, string>, m: Migration) {
  const sum = applied.get(m.name);
  if (sum !== undefined && sum !== m.checksum)
    throw new Error(`Migration ${m.name} was changed after it was applied (checksum differs); restore the file.`);
  return sum !== undefined;
}

/** Applies pending migrations; returns the names applied. Safe to run from several processes. */
export async function migrate(config: KilnConfig, root: string): Promise<string[]> {
  const migrations = readMigrations(migrationsDir(root, config.provider));
  return config.provider === "sqlite" ? migrateSqlite(config, migrations) : migratePostgres(config, migrations);
}

function migrateSqlite(config: KilnConfig, migrations: Migration[]): string[] {
  const file = config.databaseUrl.slice("file:".length);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.exec(SQLITE_TABLE);
    const done: string[] = [];
    // IMMEDIATE takes the write lock first, so two processes never apply the same migration.
    db.transaction(() => {
      const rows = db.prepare(`SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`).all() as { migration_name: string; checksum: string }[];
      const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
      for (const m of migrations) {
        if (checkApplied(applied, m)) continue;
        db.exec(m.sql);
        db.prepare(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES (?, ?, ?, current_timestamp, 1)`)
          .run(randomUUID(), m.checksum, m.name);
        done.push(m.name);
      }
    }).immediate();
    return done;
  } finally {
    db.close();
  }
}

async function migratePostgres(config: KilnConfig, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  try {
    await client.query("BEGIN");
    // A transaction-scoped advisory lock serialises concurrent start-ups.
    await client.query("SELECT pg_advisory_xact_lock(727274)");
    await client.query(PG_TABLE);
    const { rows } = await client.query(`SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL AND finished_at IS NOT NULL`);
    const applied = new Map<string, string>(rows.map((r: { migration_name: string; checksum: string }) => [r.migration_name, r.checksum]));
    const done: string[] = [];
    for (const m of migrations) {
      if (checkApplied(applied, m)) continue;
      await client.query(m.sql);
      await client.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ($1, $2, $3, now(), 1)`, [randomUUID(), m.checksum, m.name]);
      done.push(m.name);
    }
    await client.query("COMMIT");
    return done;
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    await client.end();
  }
}
