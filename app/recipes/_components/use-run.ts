"use client";
/**
 * Runs a saved recipe and shows its progress live: run_recipe {wait: false} answers at once with
 * the run's id, and get_recipe_run, whose steps grow as they finish, is polled until the run
 * has ended; its last answer is the final picture.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { readableError } from "../_lib/errors";
import { nodeRuns, type NodeRun, type StepOutcome } from "../_lib/run-progress";
import { recipeApi } from "../_lib/kiln-api";
import { useTRPCClient } from "../_lib/trpc";

/** Where a run is. */
export type RunPhase = "idle" | "running" | "succeeded" | "failed" | "error";

/** The builder's view of the current (or last) run. */
export interface RunState {
  phase: RunPhase;
  runs: ReadonlyMap<string, NodeRun>;
  runId?: string;
  message?: string;
  durationMs?: number;
}

const POLL_MS = 250;
const IDLE: RunState = { phase: "idle", runs: new Map() };

/** Starting and following runs. */
export function useRun() {
  const client = useTRPCClient();
  const api = useMemo(() => recipeApi(client), [client]);
  const [state, setState] = useState<RunState>(IDLE);
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  /** Polls a run until it ends, showing each answer; its steps are matched to `uids` by position. */
  const follow = useCallback(
    async (runId: string, uids: string[]) => {
      let failures = 0;
      while (alive.current) {
        try {
          const run = await api.getRun(runId);
          failures = 0;
          if (!alive.current) return;
          const runs = nodeRuns({ status: run.status, steps: run.steps as StepOutcome[] }, uids);
          if (run.status === "running") {
            setState({ phase: "running", runId, runs });
          } else {
            const message = run.error ? `${run.error.code}: ${run.error.message}` : undefined;
            // A run cut off by a crash is shown as failed; its error says it was interrupted.
            setState({ phase: run.status === "interrupted" ? "failed" : run.status, runId, runs, durationMs: run.duration_ms ?? undefined, ...(message ? { message } : {}) });
            return;
          }
        } catch (e) {
          // A failed poll only delays the picture; give up when the service keeps failing.
          if (++failures >= 20) {
            if (alive.current) setState({ phase: "error", runId, runs: new Map(), message: readableError(e).message });
            return;
          }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    [api],
  );

  const start = useCallback(
    async (recipe: string, variables: Record<string, string | number | boolean>, uids: string[]) => {
      const pending = new Map<string, NodeRun>(uids.map((uid, i) => [uid, { status: i === 0 ? "running" : "pending" }]));
      setState({ phase: "running", runs: pending });
      let runId: string;
      try {
        runId = (await api.start(recipe, variables)).run_id;
      } catch (e) {
        if (alive.current) setState({ phase: "error", runs: new Map(), message: readableError(e).message });
        return;
      }
      await follow(runId, uids);
    },
    [api, follow],
  );

  /** Shows a past run's results on the steps (run history); follows it if it is still running. */
  const open = useCallback((runId: string, uids: string[]) => follow(runId, uids), [follow]);

  const clear = useCallback(() => setState(IDLE), []);
  return { state, start, open, clear };
}
