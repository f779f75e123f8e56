/**
 * Applying and inverting record-level changes. An operation's changes carry both the before
 * and after value of every record it touched, so the same list replays (after) and undoes (before).
 */
import { canonicalJson } from "./canonical-json";
import type { Change, SceneEntity } from "./types";

/** Applies changes in order to a mutable state. */
export function applyChanges(state: Map<string, SceneEntity>, changes: readonly Change[]): void {
  for (const c of changes) {
    if (c.after) state.set(c.id, c.after);
    else state.delete(c.id);
  }
}

/** The changes that undo `changes`: reversed, with before and after swapped. */
export function invertChanges(changes: readonly Change[]): Change[] {
  const out: Change[] = new Array(changes.length);
  for (let i = 0; i < changes.length; i++) {
    const c = changes[changes.length - 1 - i];
    out[i] = { id: c.id, before: c.after, after: c.before };
  }
  return out;
}

/**
 * Collapses a sequence of changes into one change per record (first before, last after),
 * dropping records that end as they began. Used to make a group (a transaction, a restore)
 * one compact history entry.
 */
export function squashChanges(changes: readonly Change[]): Change[] {
  const byId = new Map<string, Change>();
  for (const c of changes) {
    const prev = byId.get(c.id);
    byId.set(c.id, { id: c.id, before: prev ? prev.before : c.before, after: c.after });
  }
  const out: Change[] = [];
  for (const c of byId.values()) if (!sameRecord(c.before, c.after)) out.push(c);
  return out;
}

/** Deep equality of two records (plain JSON data). */
export function sameRecord(a: SceneEntity | null, b: SceneEntity | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return canonicalJson(a) === canonicalJson(b);
}
