// Invariant: packs a big save writes ahead of its transaction never outlive a failed save: they
// are stored with no reference, counted when the save's transaction adds its refs, deleted when
// it fails, and swept at the next start if a crash cut the save off. Referenced objects are never
// touched by either cleanup. (On a real SQLite database, in-process.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { startKiln } from "../runtime";
import type { SceneEntity } from "../scene/types";
import { ObjectStore, PackStream } from "./object-store";
import { EMPTY_ROOT, updateTree, type StoredObject, type TreeNode } from "./tree";

let kiln: Awaited<ReturnType<typeof startKiln>>;
const home = mkdtempSync(path.join(tmpdir(), "kiln-store-"));
beforeAll(async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, KILN_HOME: home };
  delete env.DATABASE_URL;
  kiln = await startKiln(loadConfig(env, process.cwd()), process.cwd());
});
afterAll(async () => {
  await kiln.db.$disconnect();
  await kiln.ownership.release();
  rmSync(home, { recursive: true, force: true });
});

/** A tree of 6,000 records of ~1 KB: more than the 4 MiB below which nothing is written ahead. */
function bigTree() {
  const nodes = new Map<string, TreeNode>([[EMPTY_ROOT.hash, EMPTY_ROOT.node!]]);
  const pad = "x".repeat(1000);
  const records = new Map(Array.from({ length: 6000 }, (_, i) => [`object/unity/Main/P${i}`, { type: "object", id: `object/unity/Main/P${i}`, name: `P${i}`, pad } as unknown as SceneEntity]));
  return updateTree(EMPTY_ROOT.hash, records, (h) => nodes.get(h)!);
}

const refsOf = async (hashes: string[]) =>
  new Map((await kiln.db.snapshotObject.findMany({ where: { hash: { in: hashes } }, select: { hash: true, refs: true } })).map((r) => [r.hash, r.refs]));

describe("objects written ahead of a save", () => {
  it("are dropped when the save fails, swept after a crash, and counted when it succeeds", async () => {
    const store = new ObjectStore(kiln.db);
    const { root, created } = bigTree();
    const packs = created.filter((o) => o.node?.kind === "pack").map((o) => o.hash);

    // A failed save: written with no reference, then dropped.
    const written = await store.preWrite(created);
    expect(new Set(written)).toEqual(new Set(packs));
    expect([...(await refsOf(packs)).values()].every((r) => r === 0)).toBe(true);
    await store.dropUnreferenced(written);
    expect((await refsOf(packs)).size).toBe(0);

    // A crash between the two: the next start's sweep removes them, and only them.
    const before = await kiln.db.snapshotObject.count();
    await store.preWrite(created);
    expect(await store.sweep()).toBe(packs.length);
    expect(await kiln.db.snapshotObject.count()).toBe(before);

    // A save that goes through: the transaction counts references to what was written ahead.
    await store.preWrite(created);
    await kiln.db.$transaction((tx) => store.addRefs(tx, [root, root], created));
    const refs = await refsOf([root, ...packs]);
    expect(refs.get(root)).toBe(2);
    expect(packs.every((p) => refs.get(p) === 1)).toBe(true);
    expect(await store.sweep()).toBe(0);
    await store.dropUnreferenced(packs);
    expect((await refsOf(packs)).size).toBe(packs.length);
    // Releasing the root reclaims everything, packs included.
    await kiln.db.$transaction((tx) => store.release(tx, [root, root]));
    expect((await refsOf([root, ...packs])).size).toBe(0);
  }, 300_000);

  it("streamed to the writer thread, are counted already, undone when the save fails or a crash cuts it off", async () => {
    const store = new ObjectStore(kiln.db);
    const { root, created } = bigTree();
    const packs = created.filter((o) => o.node?.kind === "pack").map((o) => o.hash);
    const pendingLists = () => kiln.db.setting.count({ where: { key: { startsWith: "pending-packs/" } } });
    const stream = async () => {
      const s = store.packStream()!;
      for (const o of created) s.add(o);
      return s.finish();
    };
    const before = await kiln.db.snapshotObject.count();

    // A failed save: written counted and listed as pending, then dropped with their lists.
    const written = await stream();
    expect(new Set(written)).toEqual(new Set(packs));
    expect([...(await refsOf(packs)).values()].every((r) => r === 1)).toBe(true);
    expect(await pendingLists()).toBeGreaterThan(1);
    await store.dropPending(written);
    expect((await refsOf(packs)).size).toBe(0);
    expect(await pendingLists()).toBe(0);

    // A crash between the two: the next start's sweep removes them, and only them.
    await stream();
    expect(await store.sweep()).toBe(packs.length);
    expect(await kiln.db.snapshotObject.count()).toBe(before);
    expect(await pendingLists()).toBe(0);

    // A save that goes through: its transaction counts nothing twice and ends the pending state.
    const counted = await stream();
    await kiln.db.$transaction((tx) => store.addAndRelease(tx, [root, root], created, [], [], counted));
    const refs = await refsOf([root, ...packs]);
    expect(refs.get(root)).toBe(2);
    expect(packs.every((p) => refs.get(p) === 1)).toBe(true);
    expect(await pendingLists()).toBe(0);
    expect(await store.sweep()).toBe(0);
    await kiln.db.$transaction((tx) => store.release(tx, [root, root]));
    expect(await kiln.db.snapshotObject.count()).toBe(before);
  }, 300_000);

  it("release folded into the save's reference update gives the counts of addRefs then release", async () => {
    const store = new ObjectStore(kiln.db);
    const { root, created } = bigTree();
    await kiln.db.$transaction((tx) => store.addRefs(tx, [root, root], created));
    // A next save: one more record; the old base keeps its version's reference.
    const nodes = new Map(created.map((o) => [o.hash, o.node!]));
    const next = updateTree(root, new Map([["object/unity/Main/New", { type: "object", id: "object/unity/Main/New", name: "New" } as unknown as SceneEntity]]), (h) => nodes.get(h)!);
    expect(await kiln.db.$transaction((tx) => store.addAndRelease(tx, [next.root, next.root], next.created, [], [root]))).toBe(0);
    expect(await refsOf([root, next.root])).toEqual(new Map([[root, 1], [next.root, 2]]));
    // Released to zero (its version deleted): the old root goes, the packs both trees share stay.
    const shared = created.filter((o) => o.node?.kind === "pack" && next.created.every((n) => n.hash !== o.hash)).map((o) => o.hash);
    const deleted = await kiln.db.$transaction((tx) => store.addAndRelease(tx, [next.root], [], [], [root]));
    expect(deleted).toBeGreaterThan(0);
    expect((await refsOf([root])).size).toBe(0);
    expect((await refsOf(shared)).size).toBe(shared.length);
    expect((await refsOf([next.root])).get(next.root)).toBe(3);
    await kiln.db.$transaction((tx) => store.release(tx, [next.root, next.root, next.root]));
    expect((await refsOf([next.root, ...shared])).size).toBe(0);
  }, 300_000);
});

describe("packs streamed to the writer thread", () => {
  const MB = 1 << 20;
  const pack = (i: number, size: number): StoredObject => ({ hash: `h${i}`, data: "x".repeat(size), children: [] });

  it("go in batches of 1 MiB once 4 MiB have come, the last one fsynced; less is left to the transaction", async () => {
    const calls: { hashes: string[]; sync: boolean }[] = [];
    const insert = async (rows: { hash: string }[], { sync, refs }: { sync: boolean; refs: number }) => {
      expect(refs).toBe(1);
      calls.push({ hashes: rows.map((r) => r.hash), sync });
      return rows.map((r) => r.hash);
    };
    const small = new PackStream(insert, async () => undefined);
    for (let i = 0; i < 7; i++) small.add(pack(i, 0.5 * MB));
    expect(await small.finish()).toEqual([]);
    expect(calls).toEqual([]);

    const big = new PackStream(insert, async () => undefined);
    for (let i = 0; i < 7; i++) big.add(pack(i, 0.5 * MB));
    expect(calls).toEqual([]); // nothing sent before 4 MiB
    for (let i = 7; i < 11; i++) big.add(pack(i, 0.5 * MB));
    big.add({ hash: "node", data: "{}", children: ["h1"] }); // not a pack: inserted by the transaction
    expect(await big.finish()).toEqual(Array.from({ length: 11 }, (_, i) => `h${i}`));
    expect(calls).toEqual([
      { hashes: ["h0", "h1"], sync: false }, { hashes: ["h2", "h3"], sync: false }, { hashes: ["h4", "h5"], sync: false },
      { hashes: ["h6", "h7"], sync: false }, { hashes: ["h8", "h9", "h10"], sync: true },
    ]);
  });

  it("drop what was written when a batch fails, and reject", async () => {
    const dropped: string[][] = [];
    let n = 0;
    const insert = async (rows: { hash: string }[]) => {
      if (n++ === 1) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      return rows.map((r) => r.hash);
    };
    const stream = new PackStream(insert, async (hashes) => void dropped.push(hashes));
    for (let i = 0; i < 10; i++) stream.add(pack(i, 0.5 * MB));
    await expect(stream.finish()).rejects.toMatchObject({ code: "SQLITE_FULL" });
    expect(dropped).toEqual([["h0", "h1", "h4", "h5", "h6", "h7", "h8", "h9"]]);
  });
});
