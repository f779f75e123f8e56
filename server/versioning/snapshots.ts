/**
 * Between the working state and the snapshot trie: hashing the working state incrementally,
 * and building a state from a snapshot.
 */
import { applyChanges } from "../scene/changes";
import { IndexedState } from "../scene/indexed-state";
import type { SceneEntity } from "../scene/types";
import type { Workspace } from "../workspace/workspace";
import type { ObjectStore } from "./object-store";
import { recordText, treeEntries, updateTree, updateTreeInSlices, type StoredObject, type TreeUpdate } from "./tree";
import { readChanges } from "../workspace/op-blobs";

/** How long hashing runs before it lets other work in (a big save must not stall other clients). */
const SLICE_MS = 8;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A pause function that lets other work in once SLICE_MS have passed since the last pause. */
export function slicer(): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await pause();
    sliceStart = performance.now();
  };
}

/**
 * The snapshot of the working state: the base snapshot updated with the dirty records only,
 * so hashing costs what changed, not the size of the scene. Works in slices of SLICE_MS with
 * pauses between them; a caller that must see one consistent state runs it inside
 * `workspace.exclusive` (no write can land during a pause then).
 */
export async function snapshotWorking(ws: Workspace, store: ObjectStore, onPack?: (pack: StoredObject) => void): Promise<TreeUpdate> {
  const changes = new Map<string, SceneEntity | null>();
  let sliceStart = performance.now();
  const state = ws.state;
  let n = 0;
  for (const id of [...ws.dirty]) {
    const record = state.get(id) ?? null;
    changes.set(id, record);
    // Serialising is most of the work: done here, in slices, the tree finds the texts cached.
    if (record) recordText(record);
    if ((++n & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await pause();
      sliceStart = performance.now();
    }
  }
  // Rewriting a legacy leaf needs its unchanged records, which the state has.
  const recordOf = (id: string) => state.get(id)!;
  const big = changes.size > 2000;
  const slicedPause = async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await pause();
    sliceStart = performance.now();
  };
  const update = big
    ? await updateTreeInSlices(ws.baseRoot, changes, store.node, slicedPause, recordOf, onPack)
    : updateTree(ws.baseRoot, changes, store.node, recordOf, onPack); // a few big records (meshes) can be MBs too
  store.remember(update.created);
  return update;
}

/** The state stored under a snapshot root. */
export async function loadSnapshot(root: string, store: ObjectStore): Promise<IndexedState> {
  await store.loadTree(root);
  const entries = treeEntries(root, store.node);
  const records = await store.records([...entries.values()]);
  const state = new IndexedState();
  for (const [id, ref] of entries) {
    const record = records.get(ref);
    if (record === undefined) throw new Error(`Record ${String(ref)} of snapshot ${root} is missing.`);
    state.set(id, record);
  }
  return state;
}

/** A branch's working state: its snapshot plus its logged operations after `workSeq`. */
export async function loadBranchState(ws: { db: Workspace["database"] }, store: ObjectStore, branch: string, workRoot: string, workSeq: number) {
  const state = await loadSnapshot(workRoot, store);
  const dirty = new Set<string>();
  const ops = await ws.db.operation.findMany({ where: { branch, seq: { gt: workSeq } }, orderBy: { seq: "asc" }, select: { seq: true, changes: true, blobParts: true } });
  for (const changes of await readChanges(ws.db, ops)) {
    applyChanges(state, changes);
    for (const c of changes) dirty.add(c.id);
  }
  return { state, dirty };
}
