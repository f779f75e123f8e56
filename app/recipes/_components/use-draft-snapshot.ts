"use client";
/**
 * The draft as YAML, refreshed a moment after editing pauses. Serialising a 200-step recipe takes
 * tens of milliseconds, too much for every keystroke; validation and the YAML panel read this
 * snapshot, and `now()` serialises at once when a fresh text is needed (save, Validate).
 */
import { useCallback, useEffect, useState } from "react";
import type { RecipeDraft } from "../_lib/draft";
import { draftToYaml } from "../_lib/serialize";

/** A draft with its text and the uids of its steps at that moment. */
export interface DraftSnapshot {
  draft: RecipeDraft;
  text: string;
  uids: string[];
}

/** The snapshot of a draft (serialises it). */
export function snapshotOf(draft: RecipeDraft): DraftSnapshot {
  return { draft, text: draftToYaml(draft), uids: draft.steps.map((s) => s.uid) };
}

/** The debounced snapshot of `draft`, plus `now()` for an immediate one. */
export function useDraftSnapshot(draft: RecipeDraft, delay = 400): { snapshot: DraftSnapshot; now(): DraftSnapshot } {
  const [snapshot, setSnapshot] = useState(() => snapshotOf(draft));
  useEffect(() => {
    if (snapshot.draft === draft) return;
    const timer = setTimeout(() => setSnapshot(snapshotOf(draft)), delay);
    return () => clearTimeout(timer);
  }, [draft, delay, snapshot.draft]);
  const now = useCallback(() => {
    const fresh = snapshotOf(draft);
    setSnapshot(fresh);
    return fresh;
  }, [draft]);
  return { snapshot, now };
}
