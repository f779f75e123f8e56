/**
 * Undo/redo over immutable states. Invariants:
 * - every recorded change is one undo step, except that changes with the same `coalesce` key
 *   within COALESCE_MS of each other merge into one (typing a word is one step, not one per key);
 * - recording after an undo clears the redo stack;
 * - at most `limit` states are kept in the past; the oldest fall off.
 */

/** Past, present and future of a state. */
export interface History<T> {
  past: readonly T[];
  present: T;
  future: readonly T[];
  /** Coalesce key and time of the last recorded change. */
  last?: { key: string; at: number };
}

/** Changes closer together than this, with the same key, are one undo step. */
export const COALESCE_MS = 1000;

/** A history with `present` and nothing to undo. */
export function createHistory<T>(present: T): History<T> {
  return { past: [], present, future: [] };
}

/** Options of `record`. */
export interface RecordOptions {
  /** Merge with the previous change when it had the same key and was recent. */
  coalesce?: string;
  now?: number;
  limit?: number;
}

/** Makes `next` the present. A no-op when `next` is the present itself. */
export function record<T>(history: History<T>, next: T, options: RecordOptions = {}): History<T> {
  if (next === history.present) return history;
  const now = options.now ?? Date.now();
  const last = history.last;
  const merge = options.coalesce !== undefined && last?.key === options.coalesce && now - last.at < COALESCE_MS && history.past.length > 0;
  const limit = options.limit ?? 200;
  const past = merge ? history.past : [...history.past, history.present].slice(-limit);
  return { past, present: next, future: [], last: options.coalesce === undefined ? undefined : { key: options.coalesce, at: now } };
}

/** Replaces the present without an undo step (e.g. a selection remap). */
export function replacePresent<T>(history: History<T>, next: T): History<T> {
  return next === history.present ? history : { ...history, present: next };
}

/** Steps back one change; a no-op with nothing to undo. */
export function undo<T>(history: History<T>): History<T> {
  if (history.past.length === 0) return history;
  const present = history.past[history.past.length - 1];
  return { past: history.past.slice(0, -1), present, future: [history.present, ...history.future] };
}

/** Steps forward one change; a no-op with nothing to redo. */
export function redo<T>(history: History<T>): History<T> {
  if (history.future.length === 0) return history;
  const [present, ...future] = history.future;
  return { past: [...history.past, history.present], present, future };
}
