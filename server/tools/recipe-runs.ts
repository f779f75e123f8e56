/**
 * Recipe runs in the RecipeRun table. A row is created as `running` before the first step and
 * finished as `succeeded` or `failed`; in between its `steps` column is rewritten with the steps
 * finished so far, so a client can poll get_recipe_run while a run is in progress.
 *
 * Invariants:
 * - `steps` holds a JSON document `{steps: StepRecord[], current?, transaction?, error?,
 *   active_scene_changes?}`:
 *   `current` is the step in progress ({index, id, name, tool}), so a run cut off by a crash is
 *   marked `interrupted` at that step at the next start (markInterruptedRuns); `error` only when
 *   the run broke off for a reason that is no step's (the database went away, a crash);
 * - progress writes are throttled (at most one in flight, at least PROGRESS_INTERVAL_MS apart)
 *   and never block a step; the final write waits for them and always carries every step;
 * - a step result (or its params) larger than MAX_STORED_RESULT bytes of JSON is stored as
 *   `{truncated: true, bytes}` (the run_recipe answer itself keeps it whole), so one get_scene
 *   step of a huge scene cannot bloat the history.
 */
import { kilnEvents } from "../events/bus";
import type { Db } from "../db/client";
import type { ActiveSceneChange, RecipeRun, RunTransaction, StepError, StepRecord, VariableValue } from "../recipes";
import { callerColumns, personWhere, readActor, type ActorColumns, type ActorOut } from "../teams/attribution";

const PROGRESS_INTERVAL_MS = 200;
const MAX_STORED_RESULT = 64 * 1024;

/** A run as get_recipe_run returns it. */
export interface StoredRun {
  run_id: string;
  recipe: string;
  source: string | null;
  path: string | null;
  /** `interrupted`: the process died during the run (set at the next start). */
  status: "running" | "succeeded" | "failed" | "interrupted";
  variables: Record<string, VariableValue>;
  steps: StepRecord[];
  transaction?: RunTransaction & { id?: string };
  error?: StepError;
  /** Steps that changed an app's active scene (RecipeRun.active_scene_changes); empty while running. */
  active_scene_changes: ActiveSceneChange[];
  /** Where an `interrupted` run was cut off (`id`/`name`/`tool` null when not recorded in time). */
  interrupted_at?: { index: number; id: string | null; name: string | null; tool: string | null };
  started_at: string;
  duration_ms: number | null;
  /** Who ran it ("unknown" for runs recorded before attribution). */
  run_by: ActorOut;
}

/** A run as list_recipe_runs returns it: counts instead of the steps themselves. */
export type RunSummary = Omit<StoredRun, "steps"> & {
  step_counts: { total: number; succeeded: number; failed: number; skipped: number };
};

type Row = Partial<ActorColumns> & { id: string; recipe: string; source: string | null; path: string | null; status: string; variables: string; steps: string; transactionId: string | null; startedAt: Date; durationMs: number | null };

/** A step's params or result as stored: itself, or `{truncated, bytes}` past MAX_STORED_RESULT. */
function storedValue<T>(value: T): T | { truncated: true; bytes: number } {
  if (value === undefined) return value;
  const text = JSON.stringify(value);
  return text.length <= MAX_STORED_RESULT ? value : { truncated: true, bytes: Buffer.byteLength(text) };
}

function storedStep(record: StepRecord): string {
  if (record.result === undefined && record.params === undefined) return JSON.stringify(record);
  return JSON.stringify({ ...record, params: storedValue(record.params), result: storedValue(record.result) });
}

/** Writes one run's row as it progresses. Create it with RunRecorder.start. */
export class RunRecorder {
  /** Each finished step as JSON, serialised once. */
  private parts: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private inFlight = false;
  // The first step's start is written at once: a run killed in its first 200 ms still says where.
  private lastWrite = -Infinity;
  private startedAt = performance.now();
  private failure: unknown;
  private current: CurrentStep | undefined;

  private constructor(private db: Db, readonly id: string, private recipe: string) {}

  private announce(action: "started" | "finished", status: string): void {
    kilnEvents().publish({ kind: "run", action, run_id: this.id, recipe: this.recipe, status });
  }

  /** Creates the `running` row. */
  static async start(db: Db, run: { id: string; recipe: string; source: string; path?: string; variables: Record<string, unknown> }): Promise<RunRecorder> {
    await db.recipeRun.create({
      data: { id: run.id, recipe: run.recipe, source: run.source, path: run.path ?? null, status: "running", variables: JSON.stringify(run.variables), steps: '{"steps":[]}', ...callerColumns() },
    });
    const recorder = new RunRecorder(db, run.id, run.recipe);
    recorder.announce("started", "running");
    return recorder;
  }

  private document(extra: { current?: CurrentStep; transaction?: unknown; error?: unknown; active_scene_changes?: unknown } = {}): string {
    const tail = Object.entries(extra).filter(([, v]) => v !== undefined).map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`);
    return `{"steps":[${this.parts.join(",")}]${tail.join("")}}`;
  }

  /** Records the step now running (written with the next progress write). */
  started(step: CurrentStep): void {
    this.current = step;
    this.progress();
  }

  /** Records a finished step; writes progress when the last write is old enough. */
  step(record: StepRecord): void {
    this.parts.push(storedStep(record));
    this.current = undefined;
    this.progress();
  }

  private progress(): void {
    const now = performance.now();
    if (this.inFlight || now - this.lastWrite < PROGRESS_INTERVAL_MS) return;
    this.inFlight = true;
    this.lastWrite = now;
    const steps = this.document({ current: this.current });
    this.writing = this.db.recipeRun
      .update({ where: { id: this.id }, data: { steps } })
      .then(() => undefined, (error) => void (this.failure ??= error))
      .finally(() => (this.inFlight = false));
  }

  /** Writes the outcome of a run that ran to its end. */
  async finish(run: RecipeRun, transactionId: string | null): Promise<void> {
    await this.writing;
    const transaction = run.transaction && (transactionId ? { ...run.transaction, id: transactionId } : run.transaction);
    await this.db.recipeRun.update({
      where: { id: this.id },
      data: { status: run.status, steps: this.document({ transaction, active_scene_changes: run.active_scene_changes.length ? run.active_scene_changes : undefined }), durationMs: Math.round(run.duration_ms), transactionId },
    });
    this.announce("finished", run.status);
  }

  /** Marks a run that broke off (an exception outside any step) as failed, keeping its steps. */
  async abort(error: StepError): Promise<void> {
    await this.writing;
    await this.db.recipeRun.update({
      where: { id: this.id },
      data: { status: "failed", steps: this.document({ error }), durationMs: Math.round(performance.now() - this.startedAt) },
    });
    this.announce("finished", "failed");
  }

  /** The first progress write that failed, if any (the run itself goes on). */
  get progressFailure(): unknown {
    return this.failure;
  }
}

/** A step in progress, as the run's document records it. */
export interface CurrentStep { index: number; id: string; name: string; tool: string }

/**
 * Marks the runs left `running` by a process that died (only the project's owner calls this, at
 * start, so none of them is really running) as `interrupted`, with the step they reached: the
 * recorded step in progress, or else the first step with no record (progress is written at most
 * every 200 ms, so the last one or two finished steps may be missing). Returns how many.
 */
export async function markInterruptedRuns(db: Db): Promise<number> {
  const rows = await db.recipeRun.findMany({ where: { status: "running" }, select: { id: true, steps: true } });
  for (const row of rows) {
    const doc = parseDocument(row.steps) as ReturnType<typeof parseDocument> & { current?: CurrentStep };
    const index = Math.max(doc.current?.index ?? 0, doc.steps.length);
    const known = doc.current?.index === index ? doc.current : undefined;
    const step = { index, id: known?.id ?? null, name: known?.name ?? null, tool: known?.tool ?? null };
    const what = known ? `step ${index + 1} ("${known.name}", ${known.tool})` : `step ${index + 1}`;
    const error: StepError = { code: "INTERRUPTED", message: `The Kiln process stopped (crash or kill) during ${what}; the run was cut off there.`, details: { step } };
    const { current: _current, ...rest } = doc;
    await db.recipeRun.update({ where: { id: row.id }, data: { status: "interrupted", steps: JSON.stringify({ ...rest, interrupted_at: step, error }) } });
  }
  return rows.length;
}

/** Deletes the row of a run that turned out not to start (its recipe did not compile). */
export async function discardRun(db: Db, id: string): Promise<void> {
  await db.recipeRun.delete({ where: { id } }).catch(() => undefined);
}

function parseDocument(text: string): { steps: StepRecord[]; transaction?: StoredRun["transaction"]; error?: StepError; interrupted_at?: StoredRun["interrupted_at"]; active_scene_changes?: ActiveSceneChange[] } {
  try {
    const doc = JSON.parse(text) as unknown;
    if (Array.isArray(doc)) return { steps: doc as StepRecord[] };
    if (doc && typeof doc === "object" && Array.isArray((doc as { steps?: unknown }).steps)) return doc as ReturnType<typeof parseDocument>;
  } catch {
    // A row written by something else: show it without steps rather than fail the listing.
  }
  return { steps: [] };
}

function toStored(row: Row): StoredRun {
  const doc = parseDocument(row.steps);
  let variables: Record<string, VariableValue> = {};
  try {
    variables = JSON.parse(row.variables);
  } catch {
    // as above
  }
  return {
    run_id: row.id,
    recipe: row.recipe,
    source: row.source,
    path: row.path,
    status: row.status as StoredRun["status"],
    variables,
    steps: doc.steps,
    ...(doc.transaction ? { transaction: doc.transaction } : {}),
    ...(doc.error ? { error: doc.error } : {}),
    ...(doc.interrupted_at ? { interrupted_at: doc.interrupted_at } : {}),
    active_scene_changes: Array.isArray(doc.active_scene_changes) ? doc.active_scene_changes : [],
    started_at: row.startedAt.toISOString(),
    duration_ms: row.durationMs,
    run_by: readActor(row),
  };
}

/** One run, or undefined. */
export async function getRun(db: Db, id: string): Promise<StoredRun | undefined> {
  const row = await db.recipeRun.findUnique({ where: { id } });
  return row ? toStored(row) : undefined;
}

/** Runs newest first, optionally of one recipe, with paging. */
export async function listRuns(db: Db, options: { recipe?: string; person?: string; limit: number; offset: number }) {
  const where = { ...(options.recipe === undefined ? {} : { recipe: options.recipe }), ...(options.person ? personWhere(options.person) : {}) };
  const [rows, total] = await Promise.all([
    db.recipeRun.findMany({ where, orderBy: [{ startedAt: "desc" }, { id: "desc" }], skip: options.offset, take: options.limit }),
    db.recipeRun.count({ where }),
  ]);
  const runs: RunSummary[] = rows.map((row) => {
    const { steps, ...rest } = toStored(row);
    const count = (status: StepRecord["status"]) => steps.filter((s) => s.status === status).length;
    return { ...rest, step_counts: { total: steps.length, succeeded: count("succeeded"), failed: count("failed"), skipped: count("skipped") } };
  });
  return { runs, total, limit: options.limit, offset: options.offset };
}
