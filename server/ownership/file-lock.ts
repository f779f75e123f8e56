/**
 * An exclusive lock on a file that the kernel releases when its holder dies, however it dies.
 *
 * It is SQLite's own POSIX (fcntl) lock, taken through better-sqlite3, which Kiln already ships:
 * an open `BEGIN EXCLUSIVE` on an empty database file. Why this rather than a lock file with a pid
 * in it: a pid can be reused after a crash and a stale file must be guessed stale, whereas an fcntl
 * lock simply vanishes with its process, so a new start can take over at once (SIGKILL included).
 * Why not a flock package: those on npm are native add-ons to compile; this one is already built.
 * One connection per file per process: POSIX drops a process's locks when it closes any descriptor
 * of the file, and SQLite keeps that from happening only among its own connections.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

/** A lock this process holds until `release` (or its exit). */
export interface HeldFileLock {
  file: string;
  release(): void;
}

const BUSY = new Set(["SQLITE_BUSY", "SQLITE_LOCKED"]);

/** Takes the lock on `file` (created if missing), or returns undefined when another process holds it. */
export function tryLockFile(file: string): HeldFileLock | undefined {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: 0 });
  try {
    // No journal file: nothing is ever written, and a stray "-journal" would look hot to SQLite.
    db.pragma("journal_mode = MEMORY");
    db.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    db.close();
    if (BUSY.has((error as { code?: string }).code ?? "")) return undefined;
    throw error;
  }
  return {
    file,
    release() {
      if (!db.open) return;
      try {
        db.exec("ROLLBACK");
      } finally {
        db.close();
      }
    },
  };
}
