// Invariant: a snapshot root depends only on the records, never on how it was computed: updating
// a tree in slices (with pauses, for big saves) or in one go, from any base, gives the same root
// as building the same records from empty.
import { describe, expect, it } from "vitest";
import { EMPTY_ROOT, contentHash, diffTrees, treeEntries, updateTree, updateTreeInSlices, type TreeNode } from "./tree";

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

const records = (n: number, salt = "") => new Map(Array.from({ length: n }, (_, i) => [`object/unity/Main/Obj${i}`, contentHash(`${salt}${i}`)] as [string, string]));

describe("snapshot trie", () => {
  it("builds the same root in slices as in one go", async () => {
    const s = store();
    const all = records(5000);
    const whole = updateTree(EMPTY_ROOT.hash, all, s.get);
    let pauses = 0;
    const sliced = await updateTreeInSlices(EMPTY_ROOT.hash, all, s.get, async () => void pauses++);
    expect(sliced.root).toBe(whole.root);
    expect(new Set(sliced.created.map((o) => o.hash))).toEqual(new Set(whole.created.map((o) => o.hash)));
    expect(pauses).toBe(16);
    s.keep(whole.created);
    expect(treeEntries(whole.root, s.get)).toEqual(all);
  });

  it("gives the root of the final records whatever the base and the changes", async () => {
    const s = store();
    const base = updateTree(EMPTY_ROOT.hash, records(3000), s.get);
    s.keep(base.created);
    // Change 1,000, delete 500, add 700.
    const changes = new Map<string, string | null>();
    const final = records(3000);
    for (let i = 0; i < 1000; i++) { changes.set(`object/unity/Main/Obj${i}`, contentHash(`new${i}`)); final.set(`object/unity/Main/Obj${i}`, contentHash(`new${i}`)); }
    for (let i = 1000; i < 1500; i++) { changes.set(`object/unity/Main/Obj${i}`, null); final.delete(`object/unity/Main/Obj${i}`); }
    for (let i = 3000; i < 3700; i++) { changes.set(`object/unity/Main/Obj${i}`, contentHash(`${i}`)); final.set(`object/unity/Main/Obj${i}`, contentHash(`${i}`)); }
    const updated = await updateTreeInSlices(base.root, changes, s.get, async () => undefined);
    const fresh = updateTree(EMPTY_ROOT.hash, final, s.get);
    expect(updated.root).toBe(fresh.root);
    s.keep(updated.created);
    expect(diffTrees(base.root, updated.root, s.get).size).toBe(2200);
    const none = updateTree(updated.root, new Map([...final.keys()].map((id) => [id, null])), s.get);
    expect(none.root).toBe(EMPTY_ROOT.hash);
  });
});
