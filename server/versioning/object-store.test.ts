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
import { ObjectStore } from "./object-store";
import { EMPTY_ROOT, updateTree, type TreeNode } from "./tree";

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
  }, 60_000);
});
