/**
 * Rebuilds the working state at start-up: the initial state plus the logged changes of the
 * current branch, in order. Replaying stored changes (not re-running tools) makes the rebuild
 * exact even if a tool's behaviour changes between releases.
 */
import type { Db } from "../db/client";
import { applyChanges } from "../scene/changes";
import { initialState } from "../scene/state";
import { Workspace } from "./workspace";

export const CURRENT_BRANCH_KEY = "current_branch";

/** Loads the workspace of the current branch from the database. */
export async function loadWorkspace(db: Db): Promise<Workspace> {
  const branch = (await db.setting.findUnique({ where: { key: CURRENT_BRANCH_KEY } }))?.value ?? "main";
  const state = initialState();
  const ops = await db.operation.findMany({ where: { branch }, orderBy: { seq: "asc" }, select: { changes: true } });
  for (const o of ops) applyChanges(state, JSON.parse(o.changes));
  const last = await db.operation.aggregate({ _max: { seq: true } });
  return new Workspace(db, state, branch, last._max.seq ?? 0);
}
