/**
 * Soft locks' timing, on a fake clock and a small in-memory table: a lock expires after its
 * length without activity of its holder, each call of theirs renews it (in O(1): no lock is
 * touched), renewals are written lazily, and the check costs nothing when no lock is held.
 */
import { describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { kilnEvents } from "../events/bus";
import type { Actor } from "./actor";
import { Locks } from "./locks";

type Row = Record<string, any>;
function fakeDb() {
  const rows = new Map<string, Row>();
  const matches = (r: Row, where: Row) => Object.entries(where).every(([k, v]) =>
    v && typeof v === "object" && !(v instanceof Date) ? ("lte" in v ? r[k] <= v.lte : "in" in v ? v.in.includes(r[k]) : false) : r[k] === v);
  const softLock = {
    findMany: async () => [...rows.values()].map((r) => ({ ...r })),
    upsert: async ({ where, create, update }: Row) => rows.set(where.key, { ...(rows.get(where.key) ?? create), ...update, key: where.key }),
    deleteMany: async ({ where }: Row) => {
      for (const [k, r] of rows) if (matches(r, where)) rows.delete(k);
    },
    updateMany: async ({ where, data }: Row) => {
      for (const r of rows.values()) if (matches(r, where)) Object.assign(r, data);
    },
  };
  return { db: { softLock } as unknown as Db, rows };
}

const actor = (name: string, userId: string, session = `${name}-tab`): Actor => ({ userId, name, role: "editor", client: "browser", session });
const ada = actor("Ada", "u-ada");
const ben = actor("Ben", "u-ben");
const box = { key: "object/unity/Main/Box", kind: "object" as const, name: "Box", app: "unity", scene: "Main" };
const change = (id: string) => [{ id, before: null, after: null }];

describe("Locks", () => {
  it("refuses others, lets the holder through, and expires after its length without the holder's activity", async () => {
    let now = 1_000_000;
    const { db, rows } = fakeDb();
    const locks = new Locks(db, () => now);
    await locks.lock(box, ada, 10);
    expect(() => locks.guard(change(box.key), ada)).not.toThrow();
    expect(() => locks.guard(change(box.key), ben)).toThrow(/locked by Ada/);
    // A scene's objects: a lock on the scene covers them.
    await locks.lock({ key: "scene/unity/Other", kind: "scene", name: "Other", app: "unity", scene: "Other" }, ada, 10);
    expect(() => locks.guard(change("object/unity/Other/Cone"), ben)).toThrow(/The scene "Other" is locked by Ada/);
    expect(() => locks.guard(change("object/unity/Main/Ball"), ben)).not.toThrow();

    now += 9 * 60_000;
    locks.touch(ada); // renews every lock of Ada's to 10 min from now
    now += 9 * 60_000;
    expect(() => locks.guard(change(box.key), ben)).toThrow(/locked by Ada/);
    // Renewals reach the table lazily, at the sweep.
    const stored = rows.get(box.key)!.expiresAt.getTime();
    await locks.sweep();
    expect(rows.get(box.key)!.expiresAt.getTime()).toBeGreaterThan(stored);

    now += 2 * 60_000; // 11 min after Ada's last activity
    expect(() => locks.guard(change(box.key), ben)).not.toThrow();
    const seen: string[] = [];
    const off = kilnEvents().subscribe((e) => e.kind === "lock" && seen.push(`${e.action} ${e.lock.name}`));
    await locks.sweep();
    off();
    expect(seen).toEqual(["expired Box", "expired Other"]);
    expect(rows.size).toBe(0);
  });

  it("another person's activity does not renew a lock; Kiln's own work is never refused", async () => {
    let now = 0;
    const locks = new Locks(fakeDb().db, () => now);
    await locks.lock(box, ada, 5);
    now += 4 * 60_000;
    locks.touch(ben);
    now += 2 * 60_000;
    expect(locks.list()).toEqual([]);
    await locks.lock(box, ada, 5);
    expect(() => locks.guard(change(box.key), { ...ben, client: "internal" })).not.toThrow();
  });

  it("personal mode: the holder is the client session", async () => {
    const locks = new Locks(fakeDb().db);
    const tab = { userId: null, name: "alex", role: "owner" as const, client: "browser" as const, session: "tab-1" };
    await locks.lock(box, tab);
    expect(() => locks.guard(change(box.key), { ...tab, client: "mcp", session: "mcp-1" })).toThrow(/locked by alex/);
    expect(() => locks.guard(change(box.key), tab)).not.toThrow();
  });

  it("load() keeps unexpired locks across a restart and drops expired ones", async () => {
    let now = 0;
    const { db } = fakeDb();
    const first = new Locks(db, () => now);
    await first.lock(box, ada, 30);
    await first.lock({ ...box, key: "object/unity/Main/Ball", name: "Ball" }, ada, 1);
    first.stop();
    now += 5 * 60_000;
    const second = new Locks(db, () => now);
    await second.load();
    second.stop();
    expect(second.list().map((l) => [l.name, l.holder.name, l.ttlMs])).toEqual([["Box", "Ada", 30 * 60_000]]);
    expect(() => second.guard(change(box.key), ben)).toThrow(/locked by Ada/);
  });

  it("endSession releases only the locks of that person's session", async () => {
    const locks = new Locks(fakeDb().db);
    await locks.lock(box, ada);
    expect(await locks.endSession("Ada-tab", "u-ben")).toBe(0);
    expect(await locks.endSession("Ada-tab", "u-ada")).toBe(1);
    expect(locks.list()).toEqual([]);
  });
});
