/**
 * `undo` and `redo` (docs/undo.md): the last step of the current branch, whoever made it, undone
 * or redone as a new log entry of inverse changes, so history stays append-only. Runs in
 * `workspace.exclusive`, so the step chosen is still the last one when its inverse is applied.
 */
import { Prisma } from "../db/generated/sqlite/client";
import type { Db } from "../db/client";
import { conflict } from "../errors";
import { invertChanges, sameRecord, squashChanges } from "../scene/changes";
import type { Change } from "../scene/types";
import type { Transactions } from "../transactions/transactions";
import { replayStacks, type LogEntry, type Stacks } from "./undo-stack";
import type { Workspace } from "./workspace";
import { readChanges } from "./op-blobs";

/** How far back undo looks: the branch's last this many log entries. */
export const UNDO_WINDOW = 10_000;

export interface UndoDeps { db: Db; workspace: Workspace; transactions: Transactions }

/** What undo and redo answer. */
export interface UndoResult {
  seq: number;
  /** The log entries whose effect was undone (undo) or the undo entry that was inverted (redo). */
  steps: number[];
  tools: string[];
  changed_records: number;
  can_undo: boolean;
  can_redo: boolean;
}

async function stacks(deps: UndoDeps): Promise<Stacks> {
  const rows = await deps.db.$queryRaw<{ seq: number | bigint; kind: string; params: string; transactionId: string | null; empty: unknown }[]>(Prisma.sql`
    SELECT "seq", "kind", "params", "transactionId", ("changes" = '[]') AS "empty" FROM "Operation"
    WHERE "branch" = ${deps.workspace.branch} ORDER BY "seq" DESC LIMIT ${UNDO_WINDOW}`);
  const entries: LogEntry[] = rows.reverse().map((r) => ({
    seq: Number(r.seq), kind: r.kind, params: JSON.parse(r.params), transactionId: r.transactionId, empty: r.empty === true || Number(r.empty) === 1,
  }));
  const ids = [...new Set(entries.map((e) => e.transactionId).filter((x): x is string => !!x))];
  const txs = ids.length ? await deps.db.transaction.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } }) : [];
  return replayStacks(entries, new Map(txs.map((t) => [t.id, t.status])));
}

async function changesOf(db: Db, seqs: number[]): Promise<Change[]> {
  const rows = await db.operation.findMany({ where: { seq: { in: seqs } }, orderBy: { seq: "asc" }, select: { seq: true, changes: true, blobParts: true } });
  return (await readChanges(db, rows)).flat();
}

async function toolsOf(db: Db, seqs: number[]): Promise<string[]> {
  const rows = await db.operation.findMany({ where: { seq: { in: seqs } }, orderBy: { seq: "asc" }, select: { tool: true } });
  return [...new Set(rows.map((r) => r.tool))];
}

/**
 * The changes that take the working state from the step's "after" back to its "before". Refuses
 * when a record no longer holds what the step left (it cannot happen through the stacks; it
 * guards against a log that does not match the state).
 */
function inverse(ws: Workspace, changes: Change[], what: string): Change[] {
  const undo = squashChanges(invertChanges(changes));
  const moved = undo.find((c) => !sameRecord(ws.state.get(c.id) ?? null, c.before));
  if (moved) throw conflict("UNDO_CONFLICT", `Cannot ${what}: "${moved.id}" changed since; nothing was changed.`, { record: moved.id });
  return undo;
}

/** Refuses a step that began before the open transaction: undo stays inside it. */
function checkTransaction(deps: UndoDeps, firstSeq: number, what: string): string | null {
  const open = deps.transactions.openBounds;
  if (open && firstSeq <= open.startSeq)
    throw conflict("TRANSACTION_BOUNDARY", `Cannot ${what} past the start of the open transaction; commit or roll it back first.`, { transaction: open.id });
  return open?.id ?? null;
}

/** Undoes the last step of the current branch. */
export function undoLast(deps: UndoDeps): Promise<UndoResult> {
  const ws = deps.workspace;
  return ws.exclusive(async () => {
    const { undo, redo } = await stacks(deps);
    const step = undo.at(-1);
    if (!step) throw conflict("NOTHING_TO_UNDO", `Nothing to undo on branch "${ws.branch}".`, { branch: ws.branch });
    const tx = checkTransaction(deps, step.seqs[0], "undo");
    const undoChanges = inverse(ws, await changesOf(deps.db, step.seqs), "undo");
    const tools = await toolsOf(deps.db, step.seqs);
    const applied = await ws.applyGroup("undo", "undo", { undoes: step.seqs }, undoChanges, tx);
    return { seq: applied.seq, steps: step.seqs, tools, changed_records: undoChanges.length, can_undo: undo.length > 1, can_redo: true };
  });
}

/** Re-applies the last undone step, if nothing changed since it was undone. */
export function redoLast(deps: UndoDeps): Promise<UndoResult> {
  const ws = deps.workspace;
  return ws.exclusive(async () => {
    const { undo, redo } = await stacks(deps);
    const step = redo.at(-1);
    if (!step) throw conflict("NOTHING_TO_REDO", `Nothing to redo on branch "${ws.branch}": nothing was undone since the last change.`, { branch: ws.branch });
    const tx = checkTransaction(deps, step.undoSeq, "redo");
    const redoChanges = inverse(ws, await changesOf(deps.db, [step.undoSeq]), "redo");
    const tools = await toolsOf(deps.db, step.of);
    const applied = await ws.applyGroup("redo", "redo", { redoes: step.undoSeq, of: step.of }, redoChanges, tx);
    return { seq: applied.seq, steps: step.of, tools, changed_records: redoChanges.length, can_undo: true, can_redo: redo.length > 1 };
  });
}
