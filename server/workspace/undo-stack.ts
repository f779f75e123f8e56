/**
 * Undo and redo stacks rebuilt from the operation log of one branch (docs/undo.md). The log is
 * append-only, so undo and redo are entries of their own: `undo` with `params.undoes` (the seqs
 * whose changes it inverted), `redo` with `params.redoes` (the undo entry it inverted). Replaying
 * the log forward rebuilds the stacks; nothing else needs to be kept, and a restart loses nothing.
 *
 * - An undo step is one operation (a tool call or a live edit that changed something), a redo
 *   entry, or a whole committed transaction.
 * - A restore and a live app's full resync are barriers: nothing before them can be undone.
 * - A rolled-back transaction left no effect: its entries and its rollback entry are skipped.
 * - Any new change empties the redo stack.
 */

/** What replay needs of one log entry (its changes are read only for the chosen step). */
export interface LogEntry {
  seq: number;
  kind: string;
  params: Record<string, unknown>;
  transactionId: string | null;
  /** True when the entry changed no record (a reused create, a connect note). */
  empty: boolean;
}

/** One undo step: the entries whose changes undo inverts, in log order. */
export interface UndoStep { seqs: number[]; transaction: string | null }
/** One redo step: the undo entry whose changes redo inverts, and what that undo had undone. */
export interface RedoStep { undoSeq: number; of: number[] }

export interface Stacks { undo: UndoStep[]; redo: RedoStep[] }

const seqList = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === "number") : []);

/**
 * Rebuilds the stacks from a branch's entries in log order. `status` gives each transaction's
 * status (open, committed, rolled_back); entries of the open one are steps of their own.
 */
export function replayStacks(entries: readonly LogEntry[], status: ReadonlyMap<string, string>): Stacks {
  let undo: UndoStep[] = [];
  let redo: RedoStep[] = [];
  for (const e of entries) {
    if (e.kind === "restore" || (e.kind === "live" && e.params.replace === true)) {
      undo = [];
      redo = [];
      continue;
    }
    if (e.kind === "rollback") continue;
    const tx = e.transactionId ? status.get(e.transactionId) : undefined;
    if (tx === "rolled_back") continue;
    if (tx === "committed") {
      if (e.empty) continue;
      const last = undo.at(-1);
      if (last && last.transaction === e.transactionId) last.seqs.push(e.seq);
      else undo.push({ seqs: [e.seq], transaction: e.transactionId });
      redo = [];
      continue;
    }
    if (e.kind === "undo") {
      undo.pop();
      redo.push({ undoSeq: e.seq, of: seqList(e.params.undoes) });
    } else if (e.kind === "redo") {
      redo.pop();
      undo.push({ seqs: [e.seq], transaction: null });
    } else if ((e.kind === "tool" || e.kind === "live") && !e.empty) {
      undo.push({ seqs: [e.seq], transaction: null });
      redo = [];
    }
  }
  return { undo, redo };
}
