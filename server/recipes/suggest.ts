/**
 * "Did you mean" hints for misspelt tool names, keys, variables and step ids.
 */

/** Edit distance (insert, delete, substitute, swap of neighbours) between two short strings. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/**
 * The closest candidate, if it is close enough to be a likely typo (about a third of the
 * length may differ), compared case-insensitively.
 * @example closestMatch("create_ligth", ["create_light", "set_camera"]) // "create_light"
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(wanted.length / 3)) + 1;
  for (const candidate of candidates) {
    // Lengths far apart cannot be close; skipping them keeps big catalogues cheap.
    if (Math.abs(candidate.length - wanted.length) >= bestDistance) continue;
    const d = distance(wanted, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` or "", ready to append to a message. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? "" : ` (did you mean "${match}"?)`;
}
