/** Pins undo/redo: one step per change, coalescing by key within a second, redo cleared by a new change. */
import { describe, expect, it } from "vitest";
import { COALESCE_MS, createHistory, record, redo, undo } from "./history";

describe("history", () => {
  it("undoes and redoes through a sequence of changes", () => {
    let h = createHistory("a");
    h = record(h, "b");
    h = record(h, "c");
    h = undo(h);
    expect(h.present).toBe("b");
    h = undo(h);
    expect(h.present).toBe("a");
    expect(undo(h)).toBe(h);
    h = redo(redo(h));
    expect(h.present).toBe("c");
    expect(redo(h)).toBe(h);
  });

  it("merges changes with the same key made within the window", () => {
    let h = createHistory("");
    h = record(h, "S", { coalesce: "name", now: 0 });
    h = record(h, "Su", { coalesce: "name", now: 300 });
    h = record(h, "Sun", { coalesce: "name", now: 600 });
    h = record(h, "Sun!", { coalesce: "name", now: 600 + COALESCE_MS });
    expect(h.past).toEqual(["", "Sun"]);
    h = record(h, "x", { coalesce: "other", now: 700 + COALESCE_MS });
    expect(h.past).toEqual(["", "Sun", "Sun!"]);
  });

  it("clears the redo stack on a new change and ignores no-op changes", () => {
    let h = record(record(createHistory(1), 2), 3);
    h = record(undo(h), 4);
    expect(h.future).toEqual([]);
    expect(record(h, 4)).toBe(h);
    expect(h.past).toEqual([1, 2]);
  });

  it("keeps at most `limit` past states", () => {
    let h = createHistory(0);
    for (let i = 1; i <= 10; i++) h = record(h, i, { limit: 3 });
    expect(h.past).toEqual([7, 8, 9]);
  });
});
