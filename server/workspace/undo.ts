/**
 * `undo` and `redo` (docs/undo.md): the caller's own last step on the current branch (team mode:
 * the person's; personal mode: the client session's), undone or redone as a new log entry of
 * inverse changes, so history stays append-only. Runs in `workspace.exclusive`, so the step
 * chosen is still the caller's last when its inverse is applied. A step whose records someone
 * else changed since is refused (409 UNDO_CONFLICT naming who), never merged.
 */
import { Prisma } from "../db/generated/sqlite/client";
import type { Db } from "../db/client";
import { conflict } from "../errors";
import { invertChanges, sameRecord, squashChanges } from "../scene/changes";
import type { Change } from "../scene/types";
import type { Transactions } from "../transactions/transactions";
import { currentCaller, type Actor } from "../teams/actor";
import { readActor, type ActorColumns } from "../teams/attribution";
import { replayStacks, type LogEntry, type Stacks } from "./undo-stack";
import type { Workspace } from "./workspace";
import { readChanges } from "./op-blobs";
import { describeStep, type StepInfo } from "./undo-describe";

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

/**
 * Whose steps an actor's undo walks: a signed-in person's (all their clients), otherwise the
 * client session's (a Studio tab, an MCP session, a CLI run, a live app's connection).
 */
export function undoOwner(a: { userId: string | null; session: string }): string {
  return a.userId ? `user:${a.userId}` : `session:${a.session}`;
}

function ownerOfRow(r: Pick<ActorColumns, "actorId" | "actorSession">): string | null {
  return r.actorId ? `user:${r.actorId}` : r.actorSession ? `session:${r.actorSession}` : null;
}

/** Entries every owner's stacks see: a restore or a live app's full resync ends what anyone can undo. */
const isBarrier = (kind: string, params: Record<string, unknown>) => kind === "restore" || (kind === "live" && params.replace === true);

type StackRow = { seq: number | bigint; kind: string; params: string; transactionId: string | null; empty: unknown; actorId: string | null; actorSession: string | null };

async function stacks(deps: UndoDeps, actor: Actor): Promise<Stacks> {
  const owner = undoOwner(actor);
  const rows = await deps.db.$queryRaw<StackRow[]>(Prisma.sql`
    SELECT "seq", "kind", "params", "transactionId", ("changes" = '[]') AS "empty", "actorId", "actorSession" FROM "Operation"
    WHERE "branch" = ${deps.workspace.branch} ORDER BY "seq" DESC LIMIT ${UNDO_WINDOW}`);
  const entries: LogEntry[] = [];
  for (const r of rows.reverse()) {
    const params = JSON.parse(r.params) as Record<string, unknown>;
    if (!isBarrier(r.kind, params) && ownerOfRow(r) !== owner) continue;
    entries.push({ seq: Number(r.seq), kind: r.kind, params, transactionId: r.transactionId, empty: r.empty === true || Number(r.empty) === 1 });
  }
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
 * The latest operation after `afterSeq` on the branch that changed record `id`, to name who
 * changed it. Candidates are found by the id's JSON text in `changes` (ids are never pulled out
 * into blobs), then confirmed on the parsed changes.
 */
async function lastChangeOf(deps: UndoDeps, afterSeq: number, id: string) {
  const needle = `%${JSON.stringify(id).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await deps.db.$queryRaw<(ActorColumns & { seq: number | bigint; tool: string; changes: string; blobParts: number | bigint | null })[]>(Prisma.sql`
    SELECT "seq", "tool", "changes", "blobParts", "actorId", "actorName", "actorClient", "actorClientName", "actorToken", "actorSession" FROM "Operation"
    WHERE "branch" = ${deps.workspace.branch} AND "seq" > ${afterSeq} AND "changes" LIKE ${needle} ESCAPE '\\'
    ORDER BY "seq" DESC LIMIT 50`);
  for (const r of rows) {
    const [changes] = await readChanges(deps.db, [{ seq: Number(r.seq), changes: r.changes, blobParts: r.blobParts === null ? null : Number(r.blobParts) }]);
    if (changes.some((c) => c.id === id)) return { seq: Number(r.seq), tool: r.tool, by: readActor(r) };
  }
  return null;
}

/**
 * The changes that take the working state from the step's "after" back to its "before". Refuses
 * with 409 UNDO_CONFLICT, naming who and what, when someone else changed one of its records since.
 */
async function inverse(deps: UndoDeps, changes: Change[], lastSeq: number, what: string): Promise<Change[]> {
  const ws = deps.workspace;
  const undo = squashChanges(invertChanges(changes));
  const moved = undo.find((c) => !sameRecord(ws.state.get(c.id) ?? null, c.before));
  if (!moved) return undo;
  const record = ws.state.get(moved.id) ?? moved.before ?? moved.after;
  const name = record && "name" in record && typeof record.name === "string" ? record.name : moved.id;
  const since = await lastChangeOf(deps, lastSeq, moved.id);
  const who = since ? `${since.by.by} changed "${name}" since (${since.tool}, entry ${since.seq})` : `"${name}" changed since`;
  throw conflict("UNDO_CONFLICT", `Cannot ${what}: ${who}; nothing was changed.`, {
    record: moved.id, record_name: name, ...(since ? { by: since.by, tool: since.tool, seq: since.seq } : {}),
  });
}

/** Refuses a step that began before the open transaction: undo stays inside it. */
function checkTransaction(deps: UndoDeps, firstSeq: number, what: string): string | null {
  const open = deps.transactions.openBounds;
  if (open && firstSeq <= open.startSeq)
    throw conflict("TRANSACTION_BOUNDARY", `Cannot ${what} past the start of the open transaction; commit or roll it back first.`, { transaction: open.id });
  return open?.id ?? null;
}

/** Undoes the caller's last step on the current branch. */
export function undoLast(deps: UndoDeps): Promise<UndoResult> {
  const ws = deps.workspace;
  const { actor } = currentCaller();
  return ws.exclusive(async () => {
    const { undo } = await stacks(deps, actor);
    const step = undo.at(-1);
    if (!step) throw conflict("NOTHING_TO_UNDO", `Nothing of yours to undo on branch "${ws.branch}".`, { branch: ws.branch });
    const tx = checkTransaction(deps, step.seqs[0], "undo");
    const tools = await toolsOf(deps.db, step.seqs);
    const undoChanges = await inverse(deps, await changesOf(deps.db, step.seqs), step.seqs.at(-1)!, `undo ${tools.join(", ")}`);
    const applied = await ws.applyGroup("undo", "undo", { undoes: step.seqs }, undoChanges, tx);
    return { seq: applied.seq, steps: step.seqs, tools, changed_records: undoChanges.length, can_undo: undo.length > 1, can_redo: true };
  });
}

/** Re-applies the caller's last undone step, if they changed nothing since undoing it. */
export function redoLast(deps: UndoDeps): Promise<UndoResult> {
  const ws = deps.workspace;
  const { actor } = currentCaller();
  return ws.exclusive(async () => {
    const { redo } = await stacks(deps, actor);
    const step = redo.at(-1);
    if (!step) throw conflict("NOTHING_TO_REDO", `Nothing of yours to redo on branch "${ws.branch}": you undid nothing since your last change.`, { branch: ws.branch });
    const tx = checkTransaction(deps, step.undoSeq, "redo");
    const tools = await toolsOf(deps.db, step.of);
    const redoChanges = await inverse(deps, await changesOf(deps.db, [step.undoSeq]), step.undoSeq, `redo ${tools.join(", ")}`);
    const applied = await ws.applyGroup("redo", "redo", { redoes: step.undoSeq, of: step.of }, redoChanges, tx);
    return { seq: applied.seq, steps: step.of, tools, changed_records: redoChanges.length, can_undo: true, can_redo: redo.length > 1 };
  });
}

/** What the caller's undo and redo would act on now (get_undo_state; the Studio's Undo tooltip). */
export async function undoState(deps: UndoDeps): Promise<{ undo: StepInfo | null; redo: StepInfo | null; can_undo: boolean; can_redo: boolean }> {
  const { undo, redo } = await stacks(deps, currentCaller().actor);
  const u = undo.at(-1), r = redo.at(-1);
  return {
    undo: u ? await describeStep(deps.db, u.seqs) : null,
    redo: r ? await describeStep(deps.db, r.of) : null,
    can_undo: !!u, can_redo: !!r,
  };
}
