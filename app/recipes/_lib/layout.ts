/**
 * Auto-layout of the recipe chain (start node, then every step in order). The chain runs top to
 * bottom in columns, left to right, so a long recipe fills a landscape screen instead of one
 * endless column. Node heights are computed from their content (the node CSS gives every row a
 * fixed height), so layout needs no measuring pass and is the same before and after render.
 */

/** Width of every node on the canvas, px. */
export const NODE_WIDTH = 280;
/** Vertical gap between nodes of a column (room for the "+" on the edge). */
export const ROW_GAP = 56;
/** Horizontal gap between columns. */
export const COLUMN_GAP = 120;

/** Heights of the rows a node is made of (keep in step with recipes.css). */
export const ROW = { padding: 20, header: 22, line: 18, badges: 24, error: 18, thumb: 96, variable: 18 } as const;

/** What decides a step node's height. */
export interface StepShape {
  badges: boolean;
  errors: number;
  thumbnail: boolean;
}

/** At most this many error lines are shown on a node; the rest are counted in one more line. */
export const MAX_NODE_ERRORS = 2;

/** Height of a step node: header, tool, summary, optional badges, errors and thumbnail. */
export function stepHeight(shape: StepShape): number {
  const errorLines = Math.min(shape.errors, MAX_NODE_ERRORS) + (shape.errors > MAX_NODE_ERRORS ? 1 : 0);
  return ROW.padding + ROW.header + 2 * ROW.line + (shape.badges ? ROW.badges : 0) + errorLines * ROW.error + (shape.thumbnail ? ROW.thumb : 0) + 2;
}

/** Height of the start node: title, description, meta line, variables, errors. */
export function startHeight(variables: number, errors: number): number {
  const errorLines = Math.min(errors, MAX_NODE_ERRORS) + (errors > MAX_NODE_ERRORS ? 1 : 0);
  const variableRows = variables === 0 ? 1 : variables + 1;
  return ROW.padding + ROW.header + 2 * ROW.line + variableRows * ROW.variable + errorLines * ROW.error + 2;
}

/**
 * How many nodes go in a column: all of them up to 12; beyond, about as many columns as a
 * landscape screen shows rows, with the columns evened out (no lone node in a last column).
 */
export function perColumn(count: number): number {
  if (count <= 12) return Math.max(1, count);
  const rows = Math.max(10, Math.ceil(Math.sqrt(count * 3)));
  return Math.ceil(count / Math.ceil(count / rows));
}

/** A point on the canvas. */
export interface Point {
  x: number;
  y: number;
}

/** Top-left positions of the chain's nodes, from their heights. */
export function layoutChain(heights: readonly number[]): Point[] {
  const rows = perColumn(heights.length);
  const out: Point[] = [];
  let y = 0;
  heights.forEach((height, i) => {
    if (i % rows === 0) y = 0;
    out.push({ x: Math.floor(i / rows) * (NODE_WIDTH + COLUMN_GAP), y });
    y += height + ROW_GAP;
  });
  return out;
}

/** A place a dragged step can be dropped: before chain node `index` (1 = first step). */
export interface DropSlot extends Point {
  index: number;
}

/** Every drop slot: between consecutive nodes and after the last, at the middle of the gap. */
export function dropSlots(positions: readonly Point[], heights: readonly number[]): DropSlot[] {
  const slots: DropSlot[] = [];
  const centre = (i: number) => positions[i].x + NODE_WIDTH / 2;
  for (let i = 0; i < positions.length; i++) {
    const bottom = positions[i].y + heights[i];
    const next = positions[i + 1];
    if (next && next.x === positions[i].x) {
      slots.push({ index: i + 1, x: centre(i), y: (bottom + next.y) / 2 });
      continue;
    }
    // End of a column (or of the chain): below it, and above the next column's first node.
    slots.push({ index: i + 1, x: centre(i), y: bottom + ROW_GAP / 2 });
    if (next) slots.push({ index: i + 1, x: centre(i + 1), y: next.y - ROW_GAP / 2 });
  }
  return slots;
}

/**
 * The slot nearest to `point` within `radius`, ignoring slots that would leave the dragged step
 * (chain node `dragged`) where it is. Undefined when none is close enough.
 */
export function nearestSlot(slots: readonly DropSlot[], point: Point, dragged: number, radius = 90): DropSlot | undefined {
  let best: DropSlot | undefined;
  let bestDistance = radius;
  for (const slot of slots) {
    if (slot.index === dragged || slot.index === dragged + 1) continue;
    const distance = Math.hypot(slot.x - point.x, slot.y - point.y);
    if (distance < bestDistance) {
      best = slot;
      bestDistance = distance;
    }
  }
  return best;
}

/** The step index a step at `from` ends at when dropped into the slot before chain node `slot`. */
export function targetIndex(from: number, slot: number): number {
  const insertAt = slot - 1;
  return insertAt > from ? insertAt - 1 : insertAt;
}
