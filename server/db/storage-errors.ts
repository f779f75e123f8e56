/**
 * Storage failures (the disk is full, the storage went read-only or away) as the API answers
 * them: 507 STORAGE_FULL or 503 STORAGE_UNAVAILABLE, instead of 500 INTERNAL. They are the
 * environment's fault, not Kiln's and not the caller's, and they pass: once space is freed the
 * same call succeeds. Nothing is half-applied by the time one is answered (the operation writer
 * reverts what it applied in memory; versions are written in one database transaction).
 *
 * Errors arrive wrapped in several ways (Prisma's driver-adapter errors, better-sqlite3's
 * SqliteError, pg's DatabaseError, Node's fs errors), so the codes are collected from the whole
 * chain. Listeners (the SQLite checkpointer of db/client.ts) hear about every storage failure.
 */
import { KilnError } from "../errors";

const FULL = new Set(["SQLITE_FULL", "ENOSPC", "EDQUOT", "EFBIG", "53100"]);
const UNAVAILABLE_PREFIXES = ["SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_CANTOPEN", "08"];
const UNAVAILABLE = new Set(["EROFS", "EIO", "ECONNREFUSED", "ECONNRESET", "25006", "57P01", "57P02", "57P03", "53300", "P1001", "P1017"]);

/** Every code found on an error, its causes and Prisma's driver-adapter details. */
function codes(e: unknown, seen = new Set<unknown>()): string[] {
  if (!e || typeof e !== "object" || seen.has(e) || seen.size > 20) return [];
  seen.add(e);
  const o = e as Record<string, unknown>;
  const own = [o.code, o.originalCode, o.errno && typeof o.errno === "string" ? o.errno : undefined].filter((c): c is string => typeof c === "string");
  const meta = o.meta as { driverAdapterError?: unknown } | undefined;
  return [...own, ...codes(o.cause, seen), ...codes(meta?.driverAdapterError, seen)];
}

/** The kind of storage failure `e` is, if it is one. */
export function storageFailureKind(e: unknown): "full" | "unavailable" | undefined {
  const found = codes(e);
  if (found.some((c) => FULL.has(c))) return "full";
  if (found.some((c) => UNAVAILABLE.has(c) || UNAVAILABLE_PREFIXES.some((p) => c.startsWith(p) && (p !== "08" || /^08\w{3}$/.test(c))))) return "unavailable";
  return undefined;
}

const KEY = Symbol.for("kiln.storage.listeners");
type Holder = { [KEY]?: Set<(kind: "full" | "unavailable") => void> };
const listeners = () => ((globalThis as Holder)[KEY] ??= new Set());

/** Calls `fn` after each storage failure seen; returns a function that stops it. */
export function onStorageFailure(fn: (kind: "full" | "unavailable") => void): () => void {
  listeners().add(fn);
  return () => listeners().delete(fn);
}

/**
 * The API error for a storage failure, or undefined when `e` is not one.
 * @example
 * const storage = storageError(e); if (storage) return { status: storage.status, ... };
 */
export function storageError(e: unknown): KilnError | undefined {
  const kind = storageFailureKind(e);
  if (!kind) return undefined;
  for (const fn of listeners()) fn(kind);
  return kind === "full"
    ? new KilnError("STORAGE_FULL", "The project's storage is full; nothing was changed. Free some space and try again.", 507)
    : new KilnError("STORAGE_UNAVAILABLE", "The project's storage cannot be written right now (read-only or unreachable); nothing was changed. Try again once it is back.", 503, { retry_after_s: 5 });
}
