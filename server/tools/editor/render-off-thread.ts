/**
 * Runs renderScene on one long-lived worker thread (screenshot-worker.mjs): a frame takes from
 * tens of milliseconds to seconds, and on the request thread it would stall every other client
 * for that long. Frames queue on the one worker (the machine has few cores; two frames at once
 * would only take twice as long each). A crashed worker fails the frames it held and is
 * replaced on the next call.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { RenderInput } from "../../scene/render";

/** A rendered frame, as the PNG the worker encoded. */
export interface RenderedPng { width: number; height: number; png: Buffer }
interface Pending { resolve: (out: RenderedPng) => void; reject: (e: Error) => void }

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();

/** Where Kiln's source files are (bin/kiln.js sets KILN_ROOT; tests run from the repository). */
const workerFile = () => path.join(/* turbopackIgnore: true */ process.env.KILN_ROOT ?? process.cwd(), "server", "tools", "editor", "screenshot-worker.mjs");

function failAll(error: Error): void {
  for (const p of pending.values()) p.reject(error);
  pending.clear();
  worker = null;
}

function getWorker(): Worker {
  if (worker) return worker;
  // The worker runs from the source tree, not the bundle: keep the bundler from following it.
  const w = new Worker(/* turbopackIgnore: true */ workerFile());
  w.unref(); // an idle renderer must not keep the process alive
  w.on("message", (msg: { id: number; out?: { width: number; height: number; png: Uint8Array }; error?: { name: string; message: string } }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { name: msg.error.name }));
    else p.resolve({ width: msg.out!.width, height: msg.out!.height, png: Buffer.from(msg.out!.png.buffer, msg.out!.png.byteOffset, msg.out!.png.byteLength) });
    if (pending.size === 0) w.unref();
  });
  w.on("error", (e) => { if (worker === w) failAll(e); });
  w.on("exit", (code) => { if (worker === w) failAll(new Error(`renderer worker exited with code ${code}`)); });
  worker = w;
  return w;
}

/** Renders and encodes a PNG on the worker thread; the input's arrays are copied, the PNG comes back. */
export function renderPngOffThread(input: RenderInput): Promise<RenderedPng> {
  const w = getWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref(); // keep the process alive while a frame is owed
    w.postMessage({ id, input });
  });
}
