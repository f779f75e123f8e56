"use client";
/**
 * The recipe's last runs (list_recipe_runs), kept by Kiln so they survive a reload: each with the
 * variables it ran with and who ran it ("Ada via Claude Desktop") (values that differ from the recipe's defaults now stand out) and a note
 * when it switched an app's active scene. Open one to see its results on the steps, run it again
 * with the same variables, or start from them in the run dialog.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { useKilnEvents } from "@/app/_lib/use-kiln-events";
import { readTool } from "../_lib/kiln-api";
import type { RunList } from "../_lib/kiln-types";
import { useTRPC } from "../_lib/trpc";
import { formatDuration } from "../_lib/run-progress";

const LIMIT = 10;

/** A run's variable value as typed in YAML: text quoted, numbers and yes/no bare. */
const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : String(v));

export interface RunHistoryProps {
  recipe?: string;
  /** The recipe's variables with their defaults now (a run's values that differ are marked). */
  defaults: [string, unknown][];
  /** The run shown now, and whether one is under way (the list reloads when it ends). */
  shownRunId?: string;
  running: boolean;
  onOpen(runId: string): void;
  onRunAgain(variables: Record<string, unknown>): void;
  onEditAndRun(variables: Record<string, unknown>): void;
}

export function RunHistory({ recipe, defaults, shownRunId, running, onOpen, onRunAgain, onEditAndRun }: RunHistoryProps) {
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
  const byDefault = new Map(defaults);
  return (
    <section className="inspector-section run-history" aria-labelledby="run-history-title" data-testid="run-history">
      <h3 className="inspector-subhead" id="run-history-title">Runs</h3>
      {!recipe && <p className="muted">Save the recipe to run it; its runs are listed here.</p>}
      {recipe && !runs.length && !query.isLoading && <p className="muted">No runs yet.</p>}
      <ul className="run-list">
        {runs.map((r) => {
          const vars = Object.entries(r.variables);
          const when = new Date(r.started_at).toLocaleString("en-GB");
          return (
            <li key={r.run_id} className={r.run_id === shownRunId ? "is-shown" : undefined} data-testid="run-history-item">
              <span className={`run-pill run-${r.status}`}>{r.status}</span>
              <span className="muted small" title={r.started_at}>{when}{r.duration_ms != null ? ` · ${formatDuration(r.duration_ms)}` : ""}</span>
              <span className="small run-by" data-testid="run-by" title={r.run_by.session ? `session ${r.run_by.session}` : undefined}>{r.run_by.by}</span>
              <span className="muted small run-counts">{r.step_counts.succeeded}/{r.step_counts.total} ok{r.step_counts.failed ? ` · ${r.step_counts.failed} failed` : ""}</span>
              {vars.length > 0 && (
                <dl className="run-vars" aria-label="Variables of this run" data-testid="run-vars">
                  {vars.map(([k, v]) => {
                    const changed = byDefault.has(k) && byDefault.get(k) !== v;
                    return (
                      <div key={k} className={changed ? "is-changed" : undefined} title={changed ? `default now: ${shown(byDefault.get(k))}` : "the default"}>
                        <dt>{k}</dt><dd>{shown(v)}</dd>
                      </div>
                    );
                  })}
                </dl>
              )}
              {r.active_scene_changes.map((c) => (
                <span key={`${c.step_index}-${c.app}`} className="small run-note-line">Switched {c.app}&apos;s active scene to {c.to} (was {c.from}), step {c.step_index + 1}.</span>
              ))}
              <span className="run-list-actions">
                <button type="button" onClick={() => onOpen(r.run_id)} aria-label={`Open the run of ${when}`} data-testid="run-open">Open</button>
                <button type="button" onClick={() => onRunAgain(r.variables)} disabled={running} aria-label={`Run again with the variables of the run of ${when}`} data-testid="run-again">Run again</button>
                {vars.length > 0 && (
                  <button type="button" onClick={() => onEditAndRun(r.variables)} disabled={running} aria-label={`Run with the variables of the run of ${when}, changed first`} data-testid="run-edit">Change values…</button>
                )}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
