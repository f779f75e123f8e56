// Invariant: every way a storage failure reaches us (Prisma driver-adapter errors from SQLite or
// PostgreSQL, better-sqlite3's SqliteError, Node's fs errors) maps to 507 STORAGE_FULL or 503
// STORAGE_UNAVAILABLE, and nothing else does.
import { describe, expect, it } from "vitest";
import { storageError, storageFailureKind } from "./storage-errors";

const prismaError = (kind: string, originalCode: string) =>
  Object.assign(new Error("Invalid `db.operation.create()` invocation"), { code: "P2039", meta: { driverAdapterError: { name: "DriverAdapterError", cause: { kind, originalCode, message: "..." } } } });
const errno = (code: string) => Object.assign(new Error(code), { code });

describe("storage errors", () => {
  it.each([
    ["SQLite disk full (through Prisma)", prismaError("sqlite", "SQLITE_FULL"), "full"],
    ["PostgreSQL disk_full", prismaError("postgres", "53100"), "full"],
    ["ENOSPC from a file write", errno("ENOSPC"), "full"],
    ["a quota", errno("EDQUOT"), "full"],
    ["SQLite read-only", prismaError("sqlite", "SQLITE_READONLY_DBMOVED"), "unavailable"],
    ["SQLite I/O error", Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" }), "unavailable"],
    ["EROFS wrapped as a cause", new Error("write failed", { cause: errno("EROFS") }), "unavailable"],
    ["PostgreSQL in recovery / read-only", prismaError("postgres", "25006"), "unavailable"],
    ["PostgreSQL connection failure", prismaError("postgres", "08006"), "unavailable"],
  ])("%s", (_, error, kind) => {
    expect(storageFailureKind(error)).toBe(kind);
    const mapped = storageError(error)!;
    expect(mapped.status).toBe(kind === "full" ? 507 : 503);
    expect(mapped.code).toBe(kind === "full" ? "STORAGE_FULL" : "STORAGE_UNAVAILABLE");
  });

  it.each([
    ["a unique violation", prismaError("sqlite", "SQLITE_CONSTRAINT_PRIMARYKEY")],
    ["a missing file", errno("ENOENT")],
    ["a plain error", new Error("boom")],
    ["not an error", "text"],
  ])("leaves %s alone", (_, error) => {
    expect(storageFailureKind(error)).toBeUndefined();
    expect(storageError(error)).toBeUndefined();
  });
});
