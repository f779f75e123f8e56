/**
 * The memory-first files are refused inside a pipeline worker whose JavaScript heap is capped at
 * 64 MiB, 1/32 of the real pool's 2 GiB: the refusal comes from the head or the streaming
 * pre-scan, before the reader builds anything, so a small heap is enough (a worker that ran out
 * of it would fail with ERR_WORKER_OUT_OF_MEMORY instead of the limit's message). The files are
 * generated into a temp dir, large ones sparse.
 */
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import { afterAll, describe, expect, it } from "vitest";
import type { CodecTask, PackedTask } from "./codec-tasks";

const dir = mkdtempSync(path.join(tmpdir(), "kiln-small-heap-"));
const pool = new Piscina({
  filename: path.resolve("server/pipeline/worker/codec-worker.mjs"), minThreads: 1, maxThreads: 1,
  resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
});
afterAll(async () => {
  await pool.destroy();
  rmSync(dir, { recursive: true, force: true });
});
const run = (task: CodecTask) => pool.run({ task, packed: null } satisfies PackedTask);

async function objects(name: string, count: number): Promise<string> {
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  out.write("v 0 0 0\nv 1 0 0\nv 0 1 0\n");
  for (let i = 0; i < count; i += 10_000) {
    let chunk = "";
    for (let k = i; k < Math.min(count, i + 10_000); k++) chunk += `o O${k}\nf 1 2 3\n`;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  return file;
}

describe("memory-first files in a worker with a 64 MiB heap", () => {
  it.each([["120,000", 120_000], ["2,000,000", 2_000_000]])("an OBJ of %s one-triangle objects is refused for its object count", async (_, count) => {
    const main = await objects(`objects-${count}.obj`, count);
    await expect(run({ kind: "decode", format: "obj", main, side: {}, app: "blender", groupName: "g" })).rejects.toThrow(/more than 100000 objects with faces/);
  }, 120_000);

  it("a USDA holding one 200 MB string is refused for the string's length", async () => {
    const main = path.join(dir, "string.usda");
    writeFileSync(main, `#usda 1.0\n(\n    doc = "${"x".repeat(65_536)}`);
    truncateSync(main, 200e6);
    const fd = openSync(main, "r+");
    writeSync(fd, '"\n)\n', 200e6 - 4);
    closeSync(fd);
    await expect(run({ kind: "scan", format: "usd", main })).rejects.toThrow(/the string starting at line 3 is longer than 33554432 bytes/);
    await expect(run({ kind: "decode", format: "usd", main, side: {}, app: "blender", groupName: "g" })).rejects.toThrow(/longer than 33554432 bytes/);
  }, 120_000);
});
