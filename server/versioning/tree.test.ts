// Invariants: a snapshot root depends only on the records, never on how it was computed: updating
// a tree in slices (with pauses, for big saves) or in one go, from any base, gives the same root
// as building the same records from empty. A pack's stored text is the canonical JSON of the
// node. Snapshots written before packs (legacy leaves of record hashes) read as the same records.
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../scene/canonical-json";
import type { SceneEntity } from "../scene/types";
import { legacyTree } from "../../tests/helpers/legacy-snapshot";
import {
  EMPTY_ROOT, contentHash, diffTrees, diffTreesInSlices, parseNode, recordPath, sameRecord, treeEntries, updateTree, updateTreeInSlices, type TreeNode,
} from "./tree";

function store() {
  const nodes = new Map<string, TreeNode>([[EMPTY_ROOT.hash, EMPTY_ROOT.node!]]);
  const get = (h: string) => {
    const n = nodes.get(h);
    if (!n) throw new Error(`missing ${h}`);
    return n;
  };
  const keep = (created: { hash: string; node?: TreeNode }[]) => created.forEach((o) => o.node && nodes.set(o.hash, o.node));
  return { get, keep };
}

const id = (i: number) => `object/unity/Main/Obj${i}`;
const record = (i: number, salt = "") => ({ type: "object", id: id(i), name: `Obj${i}`, position: { z: i, x: salt, y: [i, { b: 1, a: 2 }] } }) as unknown as SceneEntity;
const records = (n: number, salt = "") => new Map(Array.from({ length: n }, (_, i) => [id(i), record(i, salt)] as [string, SceneEntity]));

describe("snapshot trie", () => {
  it("builds the same root in slices as in one go", async () => {
    const s = store();
    const all = records(5000);
    const whole = updateTree(EMPTY_ROOT.hash, all, s.get);
    let pauses = 0;
    const sliced = await updateTreeInSlices(EMPTY_ROOT.hash, all, s.get, async () => void pauses++);
    expect(sliced.root).toBe(whole.root);
    expect(new Set(sliced.created.map((o) => o.hash))).toEqual(new Set(whole.created.map((o) => o.hash)));
    expect(pauses).toBeGreaterThanOrEqual(256 + 16);
    s.keep(whole.created);
    expect(treeEntries(whole.root, s.get)).toEqual(all);
    // About 4,400 stored objects for 100,000 records: 16 + 256 nodes and at most 4,096 packs here.
    expect(whole.created.length).toBeLessThanOrEqual(1 + 16 + 256 + 4096);
  });

  it("stores a pack as the canonical JSON of the node, which parses back to its records", () => {
    const s = store();
    const { created } = updateTree(EMPTY_ROOT.hash, records(300), s.get);
    const packs = created.filter((o) => o.node?.kind === "pack");
    expect(packs.length).toBeGreaterThan(100);
    for (const p of packs) {
      const node = p.node as Extract<TreeNode, { kind: "pack" }>;
      expect(p.data).toBe(canonicalJson({ kind: "pack", records: Object.fromEntries(node.records) }));
      expect(p.hash).toBe(contentHash(p.data));
      expect(parseNode(p.data)).toEqual(p.node);
      expect(p.children).toEqual([]);
    }
  });

  it("gives the root of the final records whatever the base and the changes", async () => {
    const s = store();
    const base = updateTree(EMPTY_ROOT.hash, records(3000), s.get);
    s.keep(base.created);
    // Change 1,000, delete 500, add 700.
    const changes = new Map<string, SceneEntity | null>();
    const final = records(3000);
    for (let i = 0; i < 1000; i++) { changes.set(id(i), record(i, "new")); final.set(id(i), record(i, "new")); }
    for (let i = 1000; i < 1500; i++) { changes.set(id(i), null); final.delete(id(i)); }
    for (let i = 3000; i < 3700; i++) { changes.set(id(i), record(i)); final.set(id(i), record(i)); }
    const updated = await updateTreeInSlices(base.root, changes, s.get, async () => undefined);
    const fresh = updateTree(EMPTY_ROOT.hash, final, s.get);
    expect(updated.root).toBe(fresh.root);
    s.keep(updated.created);
    expect(diffTrees(base.root, updated.root, s.get).size).toBe(2200);
    // Each pack built is heard of at once, by either entry (a save streams them to the database).
    const heard: string[] = [];
    const again = updateTree(base.root, changes, s.get, undefined, (o) => heard.push(o.hash));
    expect(again.root).toBe(updated.root);
    expect(heard.sort()).toEqual(again.created.filter((o) => o.node?.kind === "pack").map((o) => o.hash).sort());
    // The rebuild counts the same differences (a save uses its count instead of a diff).
    expect(updated.changed).toBe(2200);
    expect(await diffTreesInSlices(base.root, updated.root, s.get, async () => undefined)).toEqual(diffTrees(base.root, updated.root, s.get));
    // A change back to equal content, and deleting what was never there, are no changes.
    const noop = updateTree(updated.root, new Map([[id(1), record(1, "new")], [id(1200), null]]), s.get);
    expect(noop).toMatchObject({ root: updated.root, changed: 0 });
    // Equal content in different record objects is no difference.
    const copy = updateTree(EMPTY_ROOT.hash, new Map([...final].map(([k, r]) => [k, structuredClone(r)])), s.get);
    expect(copy.root).toBe(updated.root);
    const none = updateTree(updated.root, new Map([...final.keys()].map((k) => [k, null])), s.get);
    expect(none.root).toBe(EMPTY_ROOT.hash);
  });

  it("reads legacy trees as the same records and rewrites touched leaves as packs", () => {
    const s = store();
    const all = records(2000);
    const legacy = legacyTree(all);
    s.keep(legacy.created);
    const entries = treeEntries(legacy.root, s.get);
    expect([...entries.keys()].sort()).toEqual([...all.keys()].sort());
    expect(entries.get(id(7))).toBe(contentHash(canonicalJson(all.get(id(7)))));
    const packed = updateTree(EMPTY_ROOT.hash, all, s.get);
    s.keep(packed.created);
    // Same records in both formats: no difference, and a record compares equal to its hash.
    expect(diffTrees(legacy.root, packed.root, s.get).size).toBe(0);
    expect(sameRecord(all.get(id(3)), entries.get(id(3)))).toBe(true);
    expect(sameRecord(all.get(id(3)), entries.get(id(4)))).toBe(false);
    // One change on the legacy tree: its leaf becomes a pack (unchanged records from the state).
    const after = new Map(all).set(id(5), record(5, "changed"));
    const updated = updateTree(legacy.root, new Map([[id(5), after.get(id(5))!]]), s.get, (k) => all.get(k)!);
    s.keep(updated.created);
    const d = diffTrees(legacy.root, updated.root, s.get);
    expect([...d.keys()]).toEqual([id(5)]);
    expect(updated.changed).toBe(1);
    expect(treeEntries(updated.root, s.get).get(id(5))).toBe(after.get(id(5)));
    // Rewriting a leaf that holds other records needs the working state's records.
    const shared = [...all.keys()].find((k) => [...all.keys()].some((o) => o !== k && recordPath(o) === recordPath(k)))!;
    expect(() => updateTree(legacy.root, new Map([[shared, null]]), s.get)).toThrow(/legacy/);
  });
});
