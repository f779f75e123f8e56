/**
 * A recipe run as the canvas shows it: each node running, succeeded, failed, skipped or waiting.
 * get_recipe_run lists the steps that have finished so far, in order; while the run is going,
 * the first unfinished step is the one running. Steps are matched to nodes by their position at
 * the moment the run started (the uids then), so later edits do not move the statuses around.
 */

/** A step's outcome as the run tools report it. */
export interface StepOutcome {
  id: string;
  name: string;
  tool: string;
  status: "succeeded" | "failed" | "skipped";
  /** The params the tool was called with, placeholders filled. */
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: string; message: string; details?: unknown };
  reason?: string;
  duration_ms: number;
}

/** What a node shows about the run. */
export type NodeRunStatus = "pending" | "running" | StepOutcome["status"];

/** One node's run state. */
export interface NodeRun {
  status: NodeRunStatus;
  outcome?: StepOutcome;
}

/** A run in progress or done, as get_recipe_run / run_recipe report it. */
export interface RunSnapshot {
  status: "running" | "succeeded" | "failed" | "interrupted";
  steps: readonly StepOutcome[];
}

/** Node states by uid, from a snapshot and the uids of the steps when the run began. */
export function nodeRuns(snapshot: RunSnapshot, uids: readonly string[]): Map<string, NodeRun> {
  const out = new Map<string, NodeRun>();
  uids.forEach((uid, i) => {
    const outcome = snapshot.steps[i];
    if (outcome) out.set(uid, { status: outcome.status, outcome });
    else if (snapshot.status === "running") out.set(uid, { status: i === snapshot.steps.length ? "running" : "pending" });
    // A finished run lists every step; a missing one is a run that broke off: leave it blank.
  });
  return out;
}

/** Counts for the run bar: "3/5 · 1 failed". */
export function runCounts(runs: ReadonlyMap<string, NodeRun>): Record<NodeRunStatus, number> {
  const counts: Record<NodeRunStatus, number> = { pending: 0, running: 0, succeeded: 0, failed: 0, skipped: 0 };
  for (const run of runs.values()) counts[run.status] += 1;
  return counts;
}

/** The screenshot URL in a step result (take_screenshot gives `url: /screenshots/<id>.png`). */
export function screenshotUrl(result: unknown): string | undefined {
  const url = (result as { url?: unknown } | null)?.url;
  return typeof url === "string" && /^\/screenshots\/[0-9a-f-]+\.png$/.test(url) ? url : undefined;
}

/** A step's or run's duration as the builder shows it everywhere: tenths below 10 ms ("0.1 ms"), whole ms above. */
export function formatDuration(ms: number): string {
  const tenths = Math.round(ms * 10) / 10;
  return tenths < 10 ? `${tenths.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/** The active scene a step switched (create_scene, open_scene: `switched_from` in its result), in words. */
export function sceneSwitch(result: unknown): string | undefined {
  const r = result as { switched_from?: unknown; scene?: unknown; app?: unknown } | null | undefined;
  if (typeof r?.switched_from !== "string" || typeof r.scene !== "string") return undefined;
  return `Made ${r.scene} the active scene of ${String(r.app)} (it was ${r.switched_from}).`;
}
