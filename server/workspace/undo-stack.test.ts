import { describe, expect, it } from "vitest";
import { replayStacks, type LogEntry } from "./undo-stack";

const op = (seq: number, extra: Partial<LogEntry> = {}): LogEntry => ({ seq, kind: "tool", params: {}, transactionId: null, empty: false, ...extra });
const tops = (entries: LogEntry[], status = new Map<string, string>()) => {
  const s = replayStacks(entries, status);
  return { undo: s.undo.map((x) => x.seqs), redo: s.redo.map((x) => x.undoSeq) };
};

describe("replayStacks", () => {
  it("stacks tool calls, pops on undo and pushes the undo for redo", () => {
    expect(tops([op(1), op(2)])).toEqual({ undo: [[1], [2]], redo: [] });
    expect(tops([op(1), op(2), op(3, { kind: "undo", params: { undoes: [2] } })])).toEqual({ undo: [[1]], redo: [3] });
  });

  it("a redo is an undo step of its own, and a new change empties the redo stack", () => {
    const undone = [op(1), op(2, { kind: "undo", params: { undoes: [1] } })];
    expect(tops([...undone, op(3, { kind: "redo", params: { redoes: 2 } })])).toEqual({ undo: [[3]], redo: [] });
    expect(tops([...undone, op(3)])).toEqual({ undo: [[3]], redo: [] });
  });

  it("skips entries that changed nothing and notes", () => {
    expect(tops([op(1), op(2, { empty: true }), op(3, { kind: "bridge", empty: true })])).toEqual({ undo: [[1]], redo: [] });
  });

  it("treats a restore and a live resync as barriers", () => {
    expect(tops([op(1), op(2, { kind: "restore" }), op(3)])).toEqual({ undo: [[3]], redo: [] });
    expect(tops([op(1), op(2, { kind: "live", params: { replace: true } })])).toEqual({ undo: [], redo: [] });
    expect(tops([op(1), op(2, { kind: "live" })])).toEqual({ undo: [[1], [2]], redo: [] });
  });

  it("groups a committed transaction into one step and skips a rolled-back one", () => {
    const status = new Map([["a", "committed"], ["b", "rolled_back"], ["c", "open"]]);
    const entries = [
      op(1), op(2, { transactionId: "a" }), op(3, { transactionId: "a" }),
      op(4, { transactionId: "b" }), op(5, { kind: "rollback", params: { transaction: "b" } }),
      op(6, { transactionId: "c" }), op(7, { transactionId: "c" }),
    ];
    expect(tops(entries, status)).toEqual({ undo: [[1], [2, 3], [6], [7]], redo: [] });
  });
});
