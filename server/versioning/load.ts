/**
 * Opens the working state of the current branch at start-up: the branch's snapshot plus its
 * logged operations since. A new project gets branch `main` holding the initial state.
 */
import type { Db } from "../db/client";
import { initialState } from "../scene/state";
import { Workspace } from "../workspace/workspace";
import { sweepBlobs } from "../workspace/op-blobs";
import type { ObjectStore } from "./object-store";
import { loadBranchState } from "./snapshots";
import { EMPTY_ROOT, updateTree, type StoredObject } from "./tree";

export const CURRENT_BRANCH_KEY = "current_branch";
export const DEFAULT_BRANCH = "main";

/** The snapshot of a new project's state (every app with its empty Main scene). */
export function initialSnapshot(store: ObjectStore): { root: string; created: StoredObject[] } {
  const records = new Map([...initialState().values()].map((r) => [r.id, r]));
  const { root, created } = updateTree(EMPTY_ROOT.hash, records, store.node);
  store.remember(created);
  return { root, created: [EMPTY_ROOT, ...created] };
}

/** Loads (or, for a new project, creates) the working state of the current branch. */
export async function openWorkspace(db: Db, store: ObjectStore): Promise<Workspace> {
  // Blob parts of an operation whose row a crash never wrote: their seq would be reused.
  await sweepBlobs(db);
  // Packs a crashed save wrote ahead of its transaction; never worth failing the start for.
  await store.sweep().catch((e) => console.error(`kiln: could not remove unreferenced snapshot objects (${(e as Error).message.split("\n").pop()})`));
  const branchName = (await db.setting.findUnique({ where: { key: CURRENT_BRANCH_KEY } }))?.value ?? DEFAULT_BRANCH;
  let branch = await db.branch.findUnique({ where: { name: branchName } });
  if (!branch) {
    const { root, created } = initialSnapshot(store);
    branch = await db.$transaction(async (tx) => {
      await store.addRefs(tx, [root], created);
      return tx.branch.create({ data: { name: branchName, workRoot: root, workSeq: 0 } });
    });
  }
  const { state, dirty } = await loadBranchState({ db }, store, branch.name, branch.workRoot, branch.workSeq);
  const last = await db.operation.aggregate({ _max: { seq: true } });
  const ws = new Workspace(db, state, branch.name, last._max.seq ?? 0, branch.workRoot);
  ws.dirty = dirty;
  return ws;
}
