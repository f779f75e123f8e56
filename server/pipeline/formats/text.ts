/**
 * Number formatting shared by the text formats (OBJ, USDA).
 */

/**
 * Shortest decimal for `v` at 9 significant digits: enough to restore any float32 exactly, and
 * short for round values ("1", "0.5") so files stay readable and small.
 */
export function formatFloat(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(Number(v.toPrecision(9)));
}
