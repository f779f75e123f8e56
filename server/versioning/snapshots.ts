/**
 * Between the working state and the snapshot trie: hashing the working state incrementally,
 * and building a state from a snapshot.
 */
import { applyChanges } from "../scene/changes";
import { IndexedState } from "../scene/indexed-state";
import type { SceneEntity } from "../scene/types";
import type { Workspace } from "../workspace/workspace";
import type { ObjectStore } from "./object-store";
import { recordObject, treeEntries, updateTree, type StoredObject } from "./tree";

/**
 * The snapshot of the working state: the base snapshot updated with the dirty records only,
 * so hashing costs what changed, not the size of the scene.
 */
export function snapshotWorking(ws: Workspace, store: ObjectStore): { root: string; created: StoredObject[] } {
  const changes = new Map<string, string | null>();
  const records: StoredObject[] = [];
  for (const id of ws.dirty) {
    const record = ws.state.get(id);
    if (!record) changes.set(id, null);
    else {
      const obj = recordObject(record);
      records.push(obj);
      changes.set(id, obj.hash);
    }
  }
  const { root, created } = updateTree(ws.baseRoot, changes, store.node);
  store.remember(created);
  return { root, created: [...records, ...created] };
}

/** The state stored under a snapshot root. */
export async function loadSnapshot(root: string, store: ObjectStore): Promise<IndexedState> {
  await store.loadTree(root);
  const entries = treeEntries(root, store.node);
  const data = await store.records([...entries.values()]);
  const state = new IndexedState();
  for (const [id, hash] of entries) {
    const text = data.get(hash);
    if (text === undefined) throw new Error(`Record ${hash} of snapshot ${root} is missing.`);
    state.set(id, JSON.parse(text) as SceneEntity);
  }
  return state;
}

/** A branch's working state: its snapshot plus its logged operations after `workSeq`. */
export async function loadBranchState(ws: { db: Workspace["database"] }, store: ObjectStore, branch: string, workRoot: string, workSeq: number) {
  const state = await loadSnapshot(workRoot, store);
  const dirty = new Set<string>();
  const ops = await ws.db.operation.findMany({ where: { branch, seq: { gt: workSeq } }, orderBy: { seq: "asc" }, select: { changes: true } });
  for (const o of ops) {
    const changes = JSON.parse(o.changes);
    applyChanges(state, changes);
    for (const c of changes) dirty.add(c.id);
  }
  return { state, dirty };
}
