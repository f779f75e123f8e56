/**
 * Addresses of the version pages: `/versions/<id>` (a version previewed without restoring it) and
 * `/versions/compare/<from>...<to>` (two states compared; either side may be `working`), as
 * GitHub's compare view spells a range. `..` is read as `...` too.
 */

/** A version id (v001) or the working state. */
export const SIDE = /^(working|v\d{1,9})$/;

/** The compare page of two states. */
export function compareHref(from: string, to: string): string {
  return `/versions/compare/${from}...${to}`;
}

/** The two sides of a compare range (`v001...v003`, `v001..working`), or undefined when it is not one. */
export function parseRange(range: string): { from: string; to: string } | undefined {
  const m = /^([^.]+)\.\.\.?([^.]+)$/.exec(range);
  if (!m || !SIDE.test(m[1]) || !SIDE.test(m[2])) return undefined;
  return { from: m[1], to: m[2] };
}
