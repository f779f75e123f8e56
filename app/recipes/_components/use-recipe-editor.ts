"use client";
/**
 * The builder's editing state: the draft with its undo history, and the selection. Every change
 * to the recipe goes through `edit`, so undo/redo covers every edit; the selection is not part
 * of the history (undoing does not "unselect"), but ids that no longer exist drop out of it.
 * State lives in a ref as well as in React state, so an edit computes from the latest draft even
 * when several happen before a render (a paste right after a delete, say).
 */
import { useCallback, useMemo, useRef, useState } from "react";
import type { RecipeDraft } from "../_lib/draft";
import { START_ID } from "../_lib/graph";
import { createHistory, record, redo as redoHistory, undo as undoHistory, type History } from "../_lib/history";

/** The editing API the builder's components share. */
export interface RecipeEditor {
  draft: RecipeDraft;
  /** Selected node ids (step uids and/or the start node), last clicked last. */
  selection: readonly string[];
  canUndo: boolean;
  canRedo: boolean;
  /** Applies an edit as one undo step (merged with the previous one when `coalesce` matches). */
  edit(change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string): RecipeDraft;
  /** The latest draft, for callbacks that must not re-render on every edit. */
  current(): RecipeDraft;
  undo(): void;
  redo(): void;
  select(ids: readonly string[]): void;
}

/** Holds a draft's history and the selection. */
export function useRecipeEditor(initial: RecipeDraft): RecipeEditor {
  const [history, setHistory] = useState<History<RecipeDraft>>(() => createHistory(initial));
  const ref = useRef(history);
  const [selected, setSelected] = useState<readonly string[]>([START_ID]);

  const commit = useCallback((next: History<RecipeDraft>) => {
    ref.current = next;
    setHistory(next);
  }, []);
  const edit = useCallback(
    (change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string) => {
      const next = change(ref.current.present);
      commit(record(ref.current, next, { coalesce }));
      return next;
    },
    [commit],
  );
  const undo = useCallback(() => commit(undoHistory(ref.current)), [commit]);
  const redo = useCallback(() => commit(redoHistory(ref.current)), [commit]);
  const current = useCallback(() => ref.current.present, []);
  const select = useCallback((ids: readonly string[]) => setSelected(ids), []);

  const draft = history.present;
  const selection = useMemo(() => {
    const exists = new Set([START_ID, ...draft.steps.map((s) => s.uid)]);
    const kept = selected.filter((id) => exists.has(id));
    return kept.length === selected.length ? selected : kept;
  }, [draft.steps, selected]);

  return { draft, selection, canUndo: history.past.length > 0, canRedo: history.future.length > 0, edit, current, undo, redo, select };
}
