/**
 * Watching the service while a job runs: its RSS (from /proc) and the latency a second client
 * sees calling a cheap tool every 20 ms (what "the event loop is not blocked" means to a user).
 */
import { readFileSync } from "node:fs";
import { caller } from "../bench/bench-utils";
import type { KilnServer } from "./server";

/** Resident set size of a process, in bytes, from /proc (VmRSS). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * While `work` runs: a second client calls a cheap tool every 20 ms (latencies recorded) and the
 * service's RSS is sampled. Returns the work's result, the p99 latency and the largest RSS.
 */
export async function underWatch<T>(kiln: KilnServer, work: () => Promise<T>): Promise<{ result: T; p99: number; samples: number; maxRss: number; latencies: number[] }> {
  let running = true;
  const poll = caller(kiln.url); // keep-alive: the poller should cost little next to the service
  const latencies: number[] = [];
  let maxRss = rssOf(kiln.pid);
  const poller = (async () => {
    while (running) {
      const t = performance.now();
      await poll("get_transaction_status");
      latencies.push(performance.now() - t);
      maxRss = Math.max(maxRss, rssOf(kiln.pid));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20 - (performance.now() - t))));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    await poller;
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return { result, p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0, samples: sorted.length, maxRss, latencies: sorted };
}

/**
 * The p99 a poller sees with nothing else running, over `ms`: the machine's own noise (on a
 * shared machine, other processes' load), against which the latency during a job is judged.
 */
export async function idleP99(kiln: KilnServer, ms = 1000): Promise<number> {
  return (await underWatch(kiln, () => new Promise((r) => setTimeout(r, ms)))).p99;
}

/**
 * The mechanism behind "the event loop is not blocked", asserted without a clock: while `work`
 * runs, a second client calls get_pipeline_status as fast as it is answered, and each answer's
 * worker counts are kept. An answer showing a job of the pool under way proves both that the job
 * ran on a worker thread and that the event loop answered someone meanwhile; a loaded machine
 * only makes jobs last longer, so it cannot make this fail.
 */
export async function workersSeenDuring<T>(kiln: KilnServer, work: () => Promise<T>): Promise<{ result: T; seen: { jobs: number; recipe_jobs: number }[] }> {
  let running = true;
  const poll = caller(kiln.url);
  const seen: { jobs: number; recipe_jobs: number }[] = [];
  const poller = (async () => {
    while (running) {
      const r = await poll("get_pipeline_status", {});
      if (running && r.status === 200) seen.push(r.body.result.workers);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    await poller;
  }
  return { result, seen };
}
