"use client";
/**
 * The recipe's last runs (list_recipe_runs), kept by Kiln so they survive a reload: open one to
 * see its results on the steps, or run it again with the same variables.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { useKilnEvents } from "@/app/_lib/use-kiln-events";
import { readTool } from "../_lib/kiln-api";
import type { RunList } from "../_lib/kiln-types";
import { useTRPC } from "../_lib/trpc";
import { formatDuration } from "../_lib/run-progress";

const LIMIT = 10;

export interface RunHistoryProps {
  recipe?: string;
  /** The run shown now, and whether one is under way (the list reloads when it ends). */
  shownRunId?: string;
  running: boolean;
  onOpen(runId: string): void;
  onRunAgain(runId: string): void;
}

export function RunHistory({ recipe, shownRunId, running, onOpen, onRunAgain }: RunHistoryProps) {
  const trpc = useTRPC();
  const query = useQuery({
    ...readTool(trpc, "list_recipe_runs").queryOptions({ recipe: recipe ?? "", limit: LIMIT }),
    enabled: !!recipe,
    // Refreshed while a run is going and once it has ended.
    refetchInterval: running ? 1000 : false,
    staleTime: 0,
  });
  const { refetch } = query;
  // A run of this recipe started or ended elsewhere (HTTP, the CLI, another tab).
  useKilnEvents((e) => { if (e.kind === "run" && recipe && e.recipe === recipe) void refetch(); }, ["run"]);
  useEffect(() => {
    if (!running && recipe) void refetch();
  }, [running, recipe, refetch]);
  const runs = (query.data as RunList | undefined)?.runs ?? [];
  return (
    <section className="inspector-section run-history" aria-labelledby="run-history-title" data-testid="run-history">
      <h3 className="inspector-subhead" id="run-history-title">Runs</h3>
      {!recipe && <p className="muted">Save the recipe to run it; its runs are listed here.</p>}
      {recipe && !runs.length && !query.isLoading && <p className="muted">No runs yet.</p>}
      <ul className="run-list">
        {runs.map((r) => (
          <li key={r.run_id} className={r.run_id === shownRunId ? "is-shown" : undefined} data-testid="run-history-item">
            <span className={`run-pill run-${r.status}`}>{r.status}</span>
            <span className="muted small" title={r.started_at}>{new Date(r.started_at).toLocaleString("en-GB")}{r.duration_ms != null ? ` · ${formatDuration(r.duration_ms)}` : ""}</span>
            <span className="muted small">{r.step_counts.succeeded}/{r.step_counts.total} ok{r.step_counts.failed ? ` · ${r.step_counts.failed} failed` : ""}</span>
            <span className="run-list-actions">
              <button type="button" onClick={() => onOpen(r.run_id)} aria-label={`Open the run of ${r.started_at}`} data-testid="run-open">Open</button>
              <button type="button" onClick={() => onRunAgain(r.run_id)} disabled={running} aria-label={`Run again with the variables of ${r.started_at}`}>Run again</button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
