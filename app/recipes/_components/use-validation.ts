"use client";
/**
 * Live validation with the validate_recipe tool: each new snapshot of the draft is validated
 * (answers that arrive out of order are dropped), and the issues are indexed by the step uids of
 * the text that was validated, so they land on the right nodes.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { readableError } from "../_lib/errors";
import { indexIssues, type IssueIndex } from "../_lib/issues";
import type { Validation } from "../_lib/kiln-types";
import { recipeApi } from "../_lib/kiln-api";
import { useTRPCClient } from "../_lib/trpc";
import type { DraftSnapshot } from "./use-draft-snapshot";

/** What validation knows about the recipe. */
export interface ValidationState {
  result?: Validation;
  index: IssueIndex;
  /** The text the result is about. */
  text?: string;
  pending: boolean;
  error?: string;
  /** Validates this snapshot now and resolves with the result. */
  validate(snapshot: DraftSnapshot): Promise<Validation | undefined>;
}

const EMPTY: IssueIndex = { recipe: [], steps: new Map() };

/**
 * Validates `snapshot` whenever it changes (when `enabled`). `initial` is a validation of the
 * snapshot's text that is already known (get_recipe_info answers with one), so opening a
 * recipe does not validate it twice.
 */
export function useValidation(snapshot: DraftSnapshot, enabled: boolean, initial?: Validation): ValidationState {
  const client = useTRPCClient();
  const [state, setState] = useState<{ result?: Validation; uids: string[]; text?: string; error?: string }>(() =>
    initial ? { result: initial, uids: snapshot.uids, text: snapshot.text } : { uids: [] },
  );
  const [pending, setPending] = useState(false);
  const sequence = useRef(0);

  const validate = useCallback(
    async (snap: DraftSnapshot) => {
      const n = ++sequence.current;
      setPending(true);
      try {
        const result = await recipeApi(client).validate(snap.text);
        if (n === sequence.current) setState({ result, uids: snap.uids, text: snap.text });
        return result;
      } catch (e) {
        if (n === sequence.current) setState((s) => ({ ...s, error: readableError(e).message }));
        return undefined;
      } finally {
        if (n === sequence.current) setPending(false);
      }
    },
    [client],
  );

  useEffect(() => {
    if (enabled && snapshot.text !== state.text) void validate(snapshot);
    // Only a new snapshot (or enabling) triggers a validation, not the arrival of a result.
  }, [snapshot, enabled]);

  const index = useMemo(() => (state.result ? indexIssues(state.result.errors, state.uids) : EMPTY), [state.result, state.uids]);
  return { result: state.result, index, text: state.text, pending, error: state.error, validate };
}
