/**
 * The pipeline's worker pool: decoding and encoding files run in worker threads (piscina), so a
 * large or hostile file never blocks the event loop that answers every other client.
 *
 * - At most POOL.threads tasks run at once (one per core, at most 2 by default); more wait in
 *   piscina's queue.
 * - At most POOL.maxJobs pipeline jobs (import_asset, transfer_asset calls) are under way at once,
 *   running or waiting; one more is refused at once with 503 BUSY and a Retry-After header, so
 *   memory and waiting time stay bounded however many clients send files.
 * - Worker threads run at nice +5, below the thread that answers requests.
 * - A worker's JavaScript heap is capped (POOL.heapMb): a file that still manages to explode
 *   kills that worker (piscina starts another), never the service.
 * - KILN_PIPELINE_THREADS sets the thread count; 0 runs the tasks in-process instead (debugging;
 *   that blocks the event loop). KILN_PIPELINE_JOBS sets the job limit.
 * - The same threads parse recipes (runNamedTask, for server/tools/recipe-catalogue.ts), with
 *   their own job limit (POOL.recipeJobs, KILN_RECIPE_JOBS): one pool, so the service never runs
 *   more heavy threads than it has cores for.
 *
 * The pool lives on globalThis: Next.js may load this module once per route bundle, and all
 * copies must share one pool and one job count. The worker script is found in the source tree
 * (KILN_ROOT, set by bin/kiln.js, else the working directory), never in the Next.js bundle.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { busy } from "../../errors";
import { runCodecTask, type CodecOutput, type CodecTask, type PackedOutput, type PackedTask } from "./codec-tasks";
import { packLongStrings, unpackLongStringsInTurns } from "./long-strings";

/** A non-negative integer from the environment, or undefined. */
const fromEnv = (name: string) => {
  const raw = process.env[name];
  const v = Number(raw);
  return raw !== undefined && raw !== "" && Number.isInteger(v) && v >= 0 ? v : undefined;
};

/** Pool settings; docs/pipeline.md ("Worker pool") documents them. */
export const POOL = {
  threads: fromEnv("KILN_PIPELINE_THREADS") ?? Math.min(2, availableParallelism()),
  maxJobs: Math.max(1, fromEnv("KILN_PIPELINE_JOBS") ?? 4),
  retryAfterSeconds: 2,
  /** Recipe texts being parsed at once (validate_recipe, list_recipes, ...); one more is 503 BUSY. */
  recipeJobs: Math.max(1, fromEnv("KILN_RECIPE_JOBS") ?? 4),
  recipeRetryAfterSeconds: 1,
  heapMb: 2048,
  /** A second thread that has been idle this long exits; the first is kept warm. */
  idleMs: 60_000,
  /** Added to the worker threads' nice value (Linux; ignored where unsupported). */
  nice: 5,
} as const;

/** `jobs`: pipeline jobs under way; `counts`: other kinds of jobs (limitedJob). */
interface Shared { pool?: Piscina; jobs: number; counts?: Map<string, number> }
const KEY = Symbol.for("kiln.pipeline.pool");
const shared = (): Shared => ((globalThis as { [KEY]?: Shared })[KEY] ??= { jobs: 0 });

function workerScript(): string {
  const file = path.join(process.env.KILN_ROOT ?? process.cwd(), "server/pipeline/worker/codec-worker.mjs");
  if (!existsSync(file)) throw new Error(`the pipeline worker script ${file} is missing; set KILN_ROOT to the Kiln installation`);
  return file;
}

function pool(): Piscina {
  const s = shared();
  return (s.pool ??= new Piscina({
    filename: workerScript(),
    minThreads: 1,
    maxThreads: POOL.threads,
    idleTimeout: POOL.idleMs,
    resourceLimits: { maxOldGenerationSizeMb: POOL.heapMb },
    // Worker threads run at a lower priority than the event loop's thread, so that on a busy
    // machine the scheduler gives the cores to the requests of other clients first.
    niceIncrement: POOL.nice,
  }));
}

/** Starts the pool's first thread (it loads the readers and writers) before the first file arrives. */
export function warmPool(): void {
  if (POOL.threads > 0) pool();
}

/** What a task was doing, for its out-of-memory message. */
const DOING: Record<string, string> = { decode: "decoding the file", encode: "encoding the file", scan: "reading the file", prepareRecipe: "parsing the recipe" };

/**
 * A task's failure as the callers see it: a worker that ran out of memory is named as such, with
 * what it was doing (`task`: a codec task's kind or a named task's name).
 */
export function workerFailure(e: unknown, task: string): Error {
  const err = e instanceof Error ? e : new Error(String(e));
  if ((err as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY" || /out of memory/i.test(err.message))
    return new Error(`${DOING[task] ?? task} needed more than the ${POOL.heapMb} MiB of memory a pipeline worker may use`);
  return err;
}

/** Runs a codec task on the pool (or in-process with KILN_PIPELINE_THREADS=0). */
export async function runInWorker<T extends CodecTask>(task: T): Promise<CodecOutput<T>> {
  if (POOL.threads === 0) return (await runCodecTask(task)) as CodecOutput<T>;
  try {
    // A big mesh's strings go in a shared buffer, copied in slices (long-strings.ts), both ways.
    const { value, packed } = await packLongStrings(task);
    const out = (await pool().run({ task: value, packed } satisfies PackedTask)) as PackedOutput;
    return (await unpackLongStringsInTurns(out.value, out.packed)) as CodecOutput<T>;
  } catch (e) {
    throw workerFailure(e, task.kind);
  }
}

/**
 * Runs a task that the worker script exports under `name` (codec-worker.mjs) with a
 * structured-cloneable `input`; `inProcess` is the same task on this thread, used when
 * KILN_PIPELINE_THREADS=0.
 */
export async function runNamedTask<T>(name: string, input: unknown, inProcess: () => T | Promise<T>): Promise<T> {
  if (POOL.threads === 0) return inProcess();
  try {
    return (await pool().run(input, { name })) as T;
  } catch (e) {
    throw workerFailure(e, name);
  }
}

/**
 * Runs one pipeline job (an import or a transfer), or refuses it with 503 BUSY when POOL.maxJobs
 * are already under way. Jobs are counted from acceptance to their answer.
 */
export async function pipelineJob<T>(run: () => Promise<T>): Promise<T> {
  const s = shared();
  if (s.jobs >= POOL.maxJobs)
    throw busy(`${s.jobs} file imports and transfers are already under way (at most ${POOL.maxJobs} at once); retry in ${POOL.retryAfterSeconds} s.`, POOL.retryAfterSeconds, { limit: POOL.maxJobs });
  s.jobs++;
  try {
    return await run();
  } finally {
    s.jobs--;
  }
}

/**
 * pipelineJob for another kind of work (`kind`, e.g. "recipe"): at most `max` under way, one
 * more refused at once with 503 BUSY, Retry-After `retryAfter` seconds and `what` in the message.
 */
export async function limitedJob<T>(kind: string, max: number, retryAfter: number, what: string, run: () => Promise<T>): Promise<T> {
  const counts = (shared().counts ??= new Map());
  const now = counts.get(kind) ?? 0;
  if (now >= max) throw busy(`${now} ${what} are already under way (at most ${max} at once); retry in ${retryAfter} s.`, retryAfter, { limit: max });
  counts.set(kind, now + 1);
  try {
    return await run();
  } finally {
    counts.set(kind, (counts.get(kind) ?? 1) - 1);
  }
}

/** Jobs under way (imports and transfers; recipe parses) and pool threads, for get_pipeline_status. */
export function poolStatus(): { jobs: number; max_jobs: number; recipe_jobs: number; max_recipe_jobs: number; threads: number; queued: number } {
  const s = shared();
  return {
    jobs: s.jobs, max_jobs: POOL.maxJobs, recipe_jobs: s.counts?.get("recipe") ?? 0, max_recipe_jobs: POOL.recipeJobs,
    threads: s.pool?.threads.length ?? 0, queued: s.pool?.queueSize ?? 0,
  };
}
