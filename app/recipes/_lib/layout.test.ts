/** Pins the chain layout: columns top to bottom, no overlaps, and drop slots that map to the right step index. */
import { describe, expect, it } from "vitest";
import { COLUMN_GAP, NODE_WIDTH, ROW_GAP, dropSlots, layoutChain, nearestSlot, perColumn, stepHeight, targetIndex } from "./layout";

describe("layout", () => {
  it("stacks a short chain in one column with a gap between nodes", () => {
    const heights = [120, 100, 140, 100];
    const positions = layoutChain(heights);
    expect(positions.map((p) => p.x)).toEqual([0, 0, 0, 0]);
    expect(positions[1].y).toBe(120 + ROW_GAP);
    expect(positions[3].y).toBe(120 + 100 + 140 + 3 * ROW_GAP);
  });

  it("keeps up to 12 nodes in one column and evens out the columns of longer chains", () => {
    expect(perColumn(7)).toBe(7);
    expect(perColumn(12)).toBe(12);
    expect(perColumn(13)).toBe(7);
    expect(perColumn(201)).toBe(23);
  });

  it("wraps a long chain into columns that never overlap", () => {
    const heights = Array.from({ length: 201 }, (_, i) => stepHeight({ badges: i % 3 === 0, errors: i % 5, thumbnail: i % 7 === 0 }));
    const positions = layoutChain(heights);
    const rows = perColumn(201);
    expect(positions[rows].x).toBe(NODE_WIDTH + COLUMN_GAP);
    expect(positions[rows].y).toBe(0);
    for (let i = 1; i < positions.length; i++) {
      if (positions[i].x === positions[i - 1].x) expect(positions[i].y).toBeGreaterThanOrEqual(positions[i - 1].y + heights[i - 1] + ROW_GAP);
    }
  });

  it("counts error lines up to the cap plus one summary line", () => {
    expect(stepHeight({ badges: false, errors: 5, thumbnail: false }) - stepHeight({ badges: false, errors: 0, thumbnail: false })).toBe(3 * 18);
  });

  it("finds the nearest slot, ignoring the dragged step's own place", () => {
    const heights = [100, 100, 100, 100];
    const slots = dropSlots(layoutChain(heights), heights);
    // Dragging step 0 (chain node 1) near the gap between chain nodes 2 and 3.
    const gap = slots.find((s) => s.index === 3)!;
    expect(nearestSlot(slots, { x: gap.x + 10, y: gap.y - 5 }, 1)?.index).toBe(3);
    expect(nearestSlot(slots, { x: gap.x, y: slots.find((s) => s.index === 1)!.y }, 1)).toBeUndefined();
    expect(nearestSlot(slots, { x: 5000, y: 5000 }, 1)).toBeUndefined();
  });

  it("turns a slot into the index the step ends at", () => {
    expect(targetIndex(0, 3)).toBe(1); // step 0 dropped before chain node 3 (step 2) → index 1
    expect(targetIndex(2, 1)).toBe(0); // step 2 dropped before step 0
    expect(targetIndex(0, 4)).toBe(2); // after the last of three steps
  });
});
