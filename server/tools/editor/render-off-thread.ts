/**
 * Runs renderScene on long-lived worker threads (screenshot-worker.mjs): a frame takes from
 * tens of milliseconds to seconds, and on the request thread it would stall every other client
 * for that long. Frames queue on one "frame" worker, one at a time; with two or more cores a
 * "band" worker beside it draws half of each big frame (KILN_RENDER_THREADS=1 keeps one thread).
 * Two frames at once would only take twice as long each; one frame on two threads takes about
 * half. A crashed worker fails the frames in flight and both are replaced on the next call.
 */
import os from "node:os";
import path from "node:path";
import { MessageChannel, Worker } from "node:worker_threads";
import type { RenderInput } from "../../scene/render";
import type { EncodedImage } from "./texture-images";

/** A rendered frame, as the PNG the worker encoded. */
export interface RenderedPng { width: number; height: number; png: Buffer }
interface Pending { resolve: (out: RenderedPng) => void; reject: (e: Error) => void }

let worker: Worker | null = null;
let bandWorker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, Pending>();

/** Where Kiln's source files are (bin/kiln.js sets KILN_ROOT; tests run from the repository). */
const workerFile = () => path.join(/* turbopackIgnore: true */ process.env.KILN_ROOT ?? process.cwd(), "server", "tools", "editor", "screenshot-worker.mjs");

/** Threads a frame may use: at most two (a screenshot should not take every core of a bigger machine). */
function renderThreads(): number {
  const asked = Number(process.env.KILN_RENDER_THREADS);
  return Number.isInteger(asked) && asked >= 1 ? Math.min(2, asked) : Math.min(2, os.availableParallelism());
}

function failAll(error: Error): void {
  for (const p of pending.values()) p.reject(error);
  pending.clear();
  const stale = [worker, bandWorker];
  worker = bandWorker = null;
  for (const w of stale) void w?.terminate();
}

function getWorker(): Worker {
  if (worker) return worker;
  let band: Worker | null = null;
  let w: Worker;
  // The workers run from the source tree, not the bundle: keep the bundler from following them.
  if (renderThreads() > 1) {
    const { port1, port2 } = new MessageChannel();
    band = new Worker(/* turbopackIgnore: true */ workerFile(), { workerData: { role: "band", port: port2 }, transferList: [port2] });
    band.unref(); // the frame worker holds the process while a frame is owed
    w = new Worker(/* turbopackIgnore: true */ workerFile(), { workerData: { role: "frame", band: port1 }, transferList: [port1] });
    band.on("error", (e) => { if (bandWorker === band) failAll(e); });
    band.on("exit", (code) => { if (bandWorker === band) failAll(new Error(`renderer worker exited with code ${code}`)); });
  } else {
    w = new Worker(/* turbopackIgnore: true */ workerFile(), { workerData: { role: "frame" } });
  }
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
  bandWorker = band;
  return w;
}

/**
 * The input with its meshes' arrays copied into shared memory, once: posting it then copies
 * nothing, and the frame thread passes it on to the band thread for free (a million triangles are
 * ~24 MB, which a second structured clone would copy again). An array several meshes share (the
 * vertices of an object's material slots) is copied once and stays shared: the renderer works out
 * per-vertex occlusion once for such meshes.
 */
export function sharedInput(input: RenderInput): RenderInput {
  const meshes = Array.isArray(input.meshes) ? input.meshes : [];
  const copies = new Map<unknown, unknown>();
  return {
    ...input,
    meshes: meshes.map((mesh) => {
      if (!mesh || typeof mesh !== "object") return mesh;
      const copy = sharedArrays(mesh, copies);
      // The texture's UVs too (one level down).
      if (mesh.texture && typeof mesh.texture === "object") copy.texture = sharedArrays(mesh.texture, copies);
      return copy as unknown as (typeof meshes)[number];
    }),
  };
}

/** A shallow copy of `object` whose typed arrays live in shared memory (`copies`: made so far, by original). */
function sharedArrays(object: object, copies: Map<unknown, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...object };
  for (const [key, value] of Object.entries(object)) {
    if (!ArrayBuffer.isView(value) || value instanceof DataView || value.buffer instanceof SharedArrayBuffer) continue;
    let shared = copies.get(value);
    if (!shared) {
      const typed = value as unknown as Float32Array;
      const Kind = typed.constructor as Float32ArrayConstructor;
      const fresh = new Kind(new SharedArrayBuffer(typed.byteLength));
      fresh.set(typed);
      copies.set(value, (shared = fresh));
    }
    copy[key] = shared;
  }
  return copy;
}

/**
 * Renders and encodes a PNG on the worker threads; the input's arrays are copied, the PNG comes back.
 * `images` are the encoded images the meshes' textures name (texture-images.ts): the worker decodes
 * them, off the event loop, into `input.images`.
 */
export function renderPngOffThread(input: RenderInput, images: readonly EncodedImage[] = []): Promise<RenderedPng> {
  const w = getWorker();
  const id = nextId++;
  const message = { id, input: bandWorker ? sharedInput(input) : input, images };
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref(); // keep the process alive while a frame is owed
    w.postMessage(message);
  });
}

/** Stops the renderer threads (frames in flight fail); the next frame starts new ones. */
export async function closeRenderWorkers(): Promise<void> {
  const stale = [worker, bandWorker];
  failAll(new Error("renderer workers closed"));
  await Promise.all(stale.map((w) => w?.terminate()));
}
