/**
 * Number formatting shared by the text formats (OBJ, USDA).
 */

/**
 * Shortest decimal for `v` at 9 significant digits: enough to restore any float32 exactly, and
 * short for round values ("1", "0.5") so files stay readable and small. Equal to
 * `String(Number(v.toPrecision(9)))`, but trims the zeros by hand in the common fixed-point case:
 * a writer calls this millions of times for a large mesh, and the round trip through Number costs
 * three times as much.
 */
export function formatFloat(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const s = v.toPrecision(9);
  if (s.includes("e")) return String(Number(s));
  if (!s.includes(".")) return s; // nine integer digits: nothing to trim
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--; // trailing "0"s after the point
  if (s.charCodeAt(end - 1) === 46) end--; // a bare "."
  return s.slice(0, end);
}
