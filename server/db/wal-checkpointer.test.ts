// Invariant: the service's SQLite connection never checkpoints inside its own commits (that would
// stall the event loop), yet the WAL stays bounded: the checkpoint thread keeps up with a burst.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { openDb } from "./client";
import { WAL_LIMIT } from "./wal-checkpointer";

const home = mkdtempSync(path.join(tmpdir(), "kiln-wal-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("WAL checkpoints off the event loop", () => {
  it("keeps the WAL bounded with automatic checkpoints off on the service's connection", async () => {
    const db = await openDb(loadConfig({ ...process.env, KILN_HOME: home, DATABASE_URL: "" }, process.cwd()));
    try {
      expect(await db.$queryRawUnsafe("PRAGMA wal_autocheckpoint")).toEqual([{ wal_autocheckpoint: 0n }]);
      await db.$executeRawUnsafe(`CREATE TABLE "burst" ("n" INTEGER PRIMARY KEY, "data" TEXT)`);
      const mb = "x".repeat(1 << 20);
      for (let n = 0; n < 12; n++) await db.$executeRaw`INSERT INTO "burst" ("n", "data") VALUES (${n}, ${mb})`;
      const wal = path.join(home, "kiln.db-wal");
      expect(statSync(wal).size).toBeGreaterThan(WAL_LIMIT); // nothing checkpointed inside the commits
      // The thread checkpoints; the next write starts the WAL over and cuts it to the limit.
      const deadline = Date.now() + 5000;
      let n = 100;
      while (statSync(wal).size > WAL_LIMIT && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        await db.$executeRaw`INSERT INTO "burst" ("n", "data") VALUES (${n++}, ${"y"})`;
      }
      expect(statSync(wal).size).toBeLessThanOrEqual(WAL_LIMIT);
      expect(await db.$queryRawUnsafe(`SELECT COUNT(*) AS "n" FROM "burst"`)).toEqual([{ n: BigInt(n - 100 + 12) }]);
    } finally {
      await db.$disconnect();
    }
  });
});
