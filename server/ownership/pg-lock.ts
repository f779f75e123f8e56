/**
 * The PostgreSQL side of project ownership: a session-level advisory lock, held on a connection
 * of its own for the life of the process. Advisory locks are scoped to the database they are taken
 * in, so one constant key means "this database is owned". The server releases the lock the moment
 * the holding session ends, which it does as soon as the owner's socket closes (a SIGKILL closes it).
 *
 * The holder's pid and URL travel in the session's application_name, which anyone connected to the
 * database can read next to the lock in pg_locks/pg_stat_activity: no table, no schema change.
 */
import type pg from "pg";

/** Key of the lock: ("KILN" as an int4, 1). The two-int form never collides with bigint keys. */
const LOCK_CLASS = 0x4b494c4e;
const LOCK_OBJECT = 1;

/** Who holds the lock, as its application_name says (`kiln pid=<pid> url=<url>`). */
export interface PgHolder { pid: number | null; url: string | null; label: string }

/** A held database lock. */
export interface HeldPgLock {
  /** Updates what the lock says about its holder (after the service starts listening). */
  describe(label: string): Promise<void>;
  release(): Promise<void>;
}

/** application_name is cut at 63 bytes; keep it parseable. */
export function holderLabel(pid: number, url: string | null): string {
  return `kiln pid=${pid}${url ? ` url=${url}` : ""}`.slice(0, 63);
}

export function parseHolderLabel(label: string): PgHolder {
  const pid = /\bpid=(\d+)/.exec(label)?.[1];
  const url = /\burl=(https?:\/\/\S+)/.exec(label)?.[1];
  return { pid: pid ? Number(pid) : null, url: url && URL.canParse(url) ? url : null, label };
}

async function holderOf(client: pg.Client): Promise<PgHolder | undefined> {
  const { rows } = await client.query(
    `SELECT a.application_name AS label FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 2
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [LOCK_CLASS, LOCK_OBJECT],
  );
  return rows[0] ? parseHolderLabel(String(rows[0].label ?? "")) : undefined;
}

/**
 * Takes the lock of the database at `url`, or reports who holds it. `onLost` is called if the
 * connection holding it breaks (the database restarted): the lock is gone then.
 */
export async function tryLockDatabase(url: string, label: string, onLost: (error: Error) => void): Promise<{ lock: HeldPgLock } | { holder: PgHolder | undefined }> {
  // Loaded only for PostgreSQL projects: it costs start-up time, and bin/kiln.js waits for this.
  const { default: { Client } } = await import("pg");
  const client = new Client({ connectionString: url, application_name: label });
  await client.connect();
  let ok = false;
  try {
    const { rows } = await client.query("SELECT pg_try_advisory_lock($1, $2) AS ok", [LOCK_CLASS, LOCK_OBJECT]);
    ok = rows[0]?.ok === true;
    if (!ok) return { holder: await holderOf(client) };
  } finally {
    if (!ok) await client.end().catch(() => undefined);
  }
  let released = false;
  const lost = (error: Error) => {
    if (released) return;
    released = true;
    onLost(error);
  };
  client.on("error", lost);
  client.on("end", () => lost(new Error("the connection holding the project lock closed")));
  return {
    lock: {
      async describe(next) {
        await client.query("SELECT set_config('application_name', $1, false)", [next]);
      },
      async release() {
        if (released) return;
        released = true;
        await client.end().catch(() => undefined);
      },
    },
  };
}
