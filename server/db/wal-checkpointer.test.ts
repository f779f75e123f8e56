// Invariant: the service's SQLite connection never checkpoints inside its own commits (that would
// stall the event loop), yet the WAL stays bounded: the checkpoint thread keeps up with a burst.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { openDb } from "./client";
import { migrate } from "./migrate";
import { offThreadInsert, WAL_LIMIT } from "./wal-checkpointer";

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

  it("inserts a save's packs on the thread, skipping stored ones, listing what it wrote", async () => {
    const dir = mkdtempSync(path.join(home, "packs-"));
    const config = loadConfig({ ...process.env, KILN_HOME: dir, DATABASE_URL: "" }, process.cwd());
    await migrate(config, process.cwd());
    const db = await openDb(config);
    try {
      const insert = offThreadInsert(db)!;
      expect(insert).toBeTypeOf("function");
      expect(await insert([{ hash: "a", data: "A" }, { hash: "b", data: "B" }], { sync: false, refs: 0 })).toEqual(["a", "b"]);
      // "b" is stored already: it is kept as it was and not reported (nor listed) as written.
      expect(await insert([{ hash: "b", data: "other" }, { hash: "c", data: "C" }], { sync: true, refs: 1, pending: "p/1" })).toEqual(["c"]);
      expect(await db.$queryRawUnsafe(`SELECT "hash", "data", "refs", "children" FROM "SnapshotObject" ORDER BY "hash"`)).toEqual([
        { hash: "a", data: "A", refs: 0, children: "[]" }, { hash: "b", data: "B", refs: 0, children: "[]" }, { hash: "c", data: "C", refs: 1, children: "[]" },
      ]);
      expect(await db.setting.findMany({ where: { key: "p/1" } })).toEqual([{ key: "p/1", value: JSON.stringify(["c"]) }]);
      // A failing batch (the key is taken) writes nothing, and says why.
      await expect(insert([{ hash: "d", data: "D" }], { sync: false, refs: 1, pending: "p/1" })).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
      expect(await db.snapshotObject.count({ where: { hash: "d" } })).toBe(0);
    } finally {
      await db.$disconnect();
    }
    expect(offThreadInsert(db)).toBeUndefined();
  });
});
