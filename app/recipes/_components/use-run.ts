"use client";
/**
 * Runs a saved recipe and shows its progress live. run_recipe answers only when the run has
 * ended, so the call is started without waiting for it, and meanwhile the run is found with
 * list_recipe_runs (the newest run of this recipe that was not there before) and polled with
 * get_recipe_run, whose steps grow as they finish. When run_recipe answers, its result is final.
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

  const start = useCallback(
    async (recipe: string, variables: Record<string, string | number | boolean>, uids: string[]) => {
      const pending = new Map<string, NodeRun>(uids.map((uid, i) => [uid, { status: i === 0 ? "running" : "pending" }]));
      setState({ phase: "running", runs: pending });
      let before: Set<string>;
      try {
        before = new Set((await api.listRuns(recipe, 20)).runs.map((r) => r.run_id));
      } catch (e) {
        setState({ phase: "error", runs: new Map(), message: readableError(e).message });
        return;
      }
      let finished = false;
      const call = api.run(recipe, variables).finally(() => (finished = true));
      const poll = async () => {
        let runId: string | undefined;
        while (!finished && alive.current) {
          await new Promise((r) => setTimeout(r, POLL_MS));
          if (finished) break;
          try {
            if (!runId) {
              const list = await api.listRuns(recipe, 5);
              runId = list.runs.find((r) => !before.has(r.run_id))?.run_id;
              if (!runId) continue;
            }
            const run = await api.getRun(runId);
            if (!finished && alive.current) setState({ phase: "running", runId, runs: nodeRuns({ status: run.status, steps: run.steps as StepOutcome[] }, uids) });
          } catch {
            // A failed poll only delays the picture; run_recipe's own answer is what counts.
          }
        }
      };
      void poll();
      try {
        const result = await call;
        if (!alive.current) return;
        setState({
          phase: result.status,
          runId: result.run_id,
          durationMs: result.duration_ms,
          runs: nodeRuns({ status: result.status, steps: result.steps as StepOutcome[] }, uids),
        });
      } catch (e) {
        if (alive.current) setState({ phase: "error", runs: new Map(), message: readableError(e).message });
      }
    },
    [api],
  );

  const clear = useCallback(() => setState(IDLE), []);
  return { state, start, clear };
}
