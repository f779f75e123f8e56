/**
 * The worker pool: tasks run in worker threads and give what the same task gives in-process;
 * beyond the job limit a job is refused at once with 503 BUSY carrying Retry-After, and the
 * count frees up when jobs end (also when they fail).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isKilnError } from "../../errors";
import { runCodecTask } from "./codec-tasks";
import { pipelineJob, poolStatus, POOL, runInWorker, workerFailure } from "./pool";

const dir = mkdtempSync(path.join(tmpdir(), "kiln-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pipeline worker pool", () => {
  it("names what a worker that ran out of memory was doing", () => {
    const oom = () => Object.assign(new Error("Worker terminated due to reaching memory limit: JS heap out of memory"), { code: "ERR_WORKER_OUT_OF_MEMORY" });
    expect(workerFailure(oom(), "prepareRecipe").message).toBe(`parsing the recipe needed more than the ${POOL.heapMb} MiB of memory a pipeline worker may use`);
    expect(workerFailure(oom(), "decode").message).toMatch(/^decoding the file needed/);
    expect(workerFailure(oom(), "encode").message).toMatch(/^encoding the file needed/);
    // Other failures pass through as they are.
    expect(workerFailure(new Error("bad magic"), "decode").message).toBe("bad magic");
  });

  it("runs a task in a worker thread with the in-process result", async () => {
    const obj = path.join(dir, "a.obj");
    const text = "# mtllib not-this.mtl\nmtllib a.mtl  b.mtl\r\no A\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    writeFileSync(obj, text);
    const task = { kind: "scan", format: "obj", main: obj } as const;
    expect(await runInWorker(task)).toEqual(["a.mtl  b.mtl", "a.mtl", "b.mtl"]);
    expect(await runCodecTask(task)).toEqual(["a.mtl  b.mtl", "a.mtl", "b.mtl"]);
    expect(poolStatus().threads).toBeGreaterThanOrEqual(1);
    const decoded = await runInWorker({ kind: "decode", format: "obj", main: obj, side: {}, app: "godot", groupName: "a" });
    expect(decoded.plan.objects.map((o) => o.name)).toEqual(["A"]);
    expect(decoded.file).toMatchObject({ path: obj, bytes: Buffer.byteLength(text) });
  }, 300_000);

  it("refuses a job beyond the limit with 503 BUSY and Retry-After, and frees the count when jobs end", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const running = Array.from({ length: POOL.maxJobs }, (_, k) => pipelineJob(() => (k === 0 ? Promise.reject(new Error("boom")) : held)));
    const refused = await pipelineJob(async () => "ran").catch((e) => e);
    expect(isKilnError(refused) && [refused.status, refused.code, refused.headers]).toEqual([503, "BUSY", { "retry-after": String(POOL.retryAfterSeconds) }]);
    release();
    await Promise.allSettled(running);
    expect(poolStatus().jobs).toBe(0);
    expect(await pipelineJob(async () => "ran")).toBe("ran");
  });
});
