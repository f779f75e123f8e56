// Worker threads that run the software renderer for take_screenshot, so a multi-second frame
// never blocks the event loop that serves everyone else. Plain JS that loads the TypeScript
// renderer through tsx (a runtime dependency, as bin/kiln.js uses it), because the production
// build bundles server code and has no file a worker could start from.
//
// Two roles (workerData.role): the "frame" worker takes frames from the service one at a time;
// when it has a "band" worker beside it (a MessagePort in workerData.band) and the frame is big,
// both draw it: the frame's horizontal bands are taken from a shared counter by whichever thread
// is free, and written straight into one shared RGBA buffer, so neither waits on a badly split
// frame (the sky is cheap, the ground and objects are not) and nothing is copied back. They also
// split the shadow maps and compress the PNG: band by band as they draw them, or half each after
// the frame when labels go over it (png-parts.ts).
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { renderScene, planFrame, renderBand, drawFrameLabels, MAX_SHADOW_MAP_TEXELS } = await import(new URL("../../scene/render/index.ts", import.meta.url).href);
const { encodePngPart, assemblePng } = await import(new URL("./png-parts.ts", import.meta.url).href);
const { TextureCache } = await import(new URL("./texture-images.ts", import.meta.url).href);

/** Output rows per band: small enough that two threads finish within a band of each other, big
 *  enough that transforming the meshes a band reaches stays a small part of the frame. A scene of
 *  many triangles gets four bands only: each band transforms and sorts out again every triangle
 *  of the meshes it reaches (one huge mesh reaches them all).
 *  Always even (see bandTops). */
const BAND_ROWS = 96;
const MANY_TRIANGLES = 200_000;

/** [rows per band, whether the last bands shrink] for the frame. */
function bandRowsFor(input) {
  let triangles = 0;
  for (const m of Array.isArray(input.meshes) ? input.meshes : []) triangles += (m?.indices?.length ?? 0) / 3;
  return triangles > MANY_TRIANGLES ? [Math.max(BAND_ROWS, 2 * Math.ceil(input.height / 8)), false] : [BAND_ROWS, true];
}
/** Frames with fewer pixels than this are drawn by one thread: the second would spend longer on
 *  its own copy of the shadow maps than it saves. */
const SPLIT_MIN_PIXELS = 640 * 480;

/** The smallest band at the end of a frame. */
const TAIL_ROWS = 24;

/**
 * The frame's bands, as the rows each starts at (both threads work this out alike): bands of
 * `bandRows` while more than four are left, then a quarter of what is left (at least TAIL_ROWS),
 * so the two threads run out of work within a small band of each other. With equal bands the one
 * that took the last band finished ~25 ms after the other at 1080p. Every band starts on an even
 * row: occlusion is worked out per 2x2 pixels of the frame (raster.ts), and a band must not cut a
 * block in two.
 */
function bandTops(height, [bandRows, tail]) {
  const tops = [];
  for (let top = 0; top < height; ) {
    tops.push(top);
    const left = height - top;
    top += !tail || left > bandRows * 4 ? bandRows : Math.max(TAIL_ROWS, 2 * Math.ceil(left / 8));
  }
  tops.push(height);
  return tops;
}

/**
 * Draws bands of the frame until the shared counter says none is left. With `parts`, each band is
 * also compressed as its own part of the PNG as soon as it is drawn ([band index, part] pushed):
 * the threads share that work as they share the bands, so neither waits for the other to finish
 * half of the PNG after the frame (~30 ms at 1080p). Not for frames whose overlay draws labels
 * over the finished frame.
 */
function drawBands(plan, frame, counter, banding, parts) {
  const rowBytes = plan.width * 4;
  const tops = bandTops(plan.height, banding);
  for (;;) {
    const k = Atomics.add(counter, 0, 1);
    if (k >= tops.length - 1) return;
    const top = tops[k], rows = Math.min(tops[k + 1], plan.height) - top;
    renderBand(plan, top, rows, frame.subarray(top * rowBytes, (top + rows) * rowBytes));
    // Opaque: a render's alpha is always 255, so the PNG is RGB.
    if (parts) parts.push([k, encodePngPart(frame, plan.width, top, rows, top + rows >= plan.height, true)]);
  }
}

const errorOf = (e) => ({ name: e?.name ?? "Error", message: String(e?.message ?? e) });

/** Frames with more lights than this split their bands but not their shadow maps (each shared
 *  buffer holds the largest map; they are kept from frame to frame). */
const SHARED_SHADOW_LIGHTS = 8;
/** How long a thread waits at the shadow maps for the other one before failing the frame. */
const READY_TIMEOUT_MS = 30_000;

/**
 * Splits a frame's shadow maps between the two threads (see ShadowShare): the frame thread draws
 * the top half of every map's rows, the band thread the bottom half (for scenes of very many
 * triangles, the even and the odd maps), into `buffers` (one shared buffer per slot), then each
 * waits for the other at `sync`.
 */
function shadowShare(buffers, sync, even) {
  if (!buffers) return undefined;
  return {
    buffer: (slot, length) => new Float32Array(buffers[slot], 0, length),
    part: even ? 0 : 1,
    parts: 2,
    ready() {
      Atomics.add(sync, 0, 1);
      Atomics.notify(sync, 0);
      for (let seen = Atomics.load(sync, 0); seen < 2; seen = Atomics.load(sync, 0)) {
        if (Atomics.wait(sync, 0, seen, READY_TIMEOUT_MS) === "timed-out") throw new Error("the other renderer thread did not draw its shadow maps");
      }
    },
  };
}

if (workerData?.role === "band") {
  const port = workerData.port;
  port.on("message", ({ id, input, frame, frameBytes, counter, banding, shadows, sync, encode, encodeBands }) => {
    try {
      if (encode) {
        const { width, top, rows } = encode;
        port.postMessage({ id, part: encodePngPart(new Uint8Array(frame, 0, frameBytes), width, top, rows, true, true) });
        return;
      }
      const plan = planFrame(input, shadowShare(shadows, new Int32Array(sync), false));
      const parts = encodeBands ? [] : null;
      drawBands(plan, new Uint8ClampedArray(frame, 0, frameBytes), new Int32Array(counter), banding, parts);
      port.postMessage({ id, part: parts });
    } catch (e) {
      port.postMessage({ id, error: errorOf(e) });
    }
  });
} else {
  const band = workerData?.band ?? null;
  const waiting = new Map();
  band?.on("message", ({ id, error, part }) => waiting.get(id)?.(error, part));

  /** Sends the band thread a job and resolves with its answer. */
  function ask(id, message) {
    const answer = new Promise((resolve, reject) => waiting.set(id, (error, part) => (error ? reject(Object.assign(new Error(error.message), { name: error.name })) : resolve(part))));
    band.postMessage({ id, ...message });
    return answer.finally(() => waiting.delete(id));
  }

  /** Shared shadow map buffers by slot, kept from frame to frame (fresh memory costs a page fault per 4 KiB). */
  const shadowBuffers = [];
  /** The shared RGBA frame, kept the same way (every frame overwrites all of its pixels) up to FRAME_KEEP bytes. */
  let frameBuffer = new SharedArrayBuffer(0);
  /** A frame larger than 2560x1600 has a buffer of its own, dropped with it. */
  const FRAME_KEEP = 2560 * 1600 * 4;

  /** The frame drawn by this thread and the band thread together. */
  async function renderShared(id, input) {
    const frameBytes = input.width * input.height * 4;
    let buffer = frameBuffer;
    if (buffer.byteLength < frameBytes) {
      buffer = new SharedArrayBuffer(frameBytes);
      if (frameBytes <= FRAME_KEEP) frameBuffer = buffer;
    }
    const frame = new Uint8ClampedArray(buffer, 0, frameBytes);
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const sync = new Int32Array(new SharedArrayBuffer(4));
    const lights = Array.isArray(input.lights) ? input.lights.length : 0;
    const shared = input.shadows !== false && lights <= SHARED_SHADOW_LIGHTS;
    if (shared) while (shadowBuffers.length < 2 * lights) shadowBuffers.push(new SharedArrayBuffer(MAX_SHADOW_MAP_TEXELS * 4));
    const shadows = shared ? shadowBuffers : undefined;
    const banding = bandRowsFor(input);
    const { width, height } = input;
    // Bands are compressed as they are drawn, unless labels go over the finished frame.
    const encodeBands = !input.overlay;
    const mine = encodeBands ? [] : null;
    // Asked first: both threads plan the frame (shadow maps) at the same time.
    const helped = ask(id, { input, frame: buffer, frameBytes, counter: counter.buffer, banding, shadows, sync: sync.buffer, encodeBands });
    try {
      const plan = planFrame(input, shadowShare(shadows, sync, true));
      drawBands(plan, frame, counter, banding, mine);
    } finally {
      await helped.catch(() => {}); // never leave the band thread writing into a frame we dropped
    }
    const theirs = await helped;
    if (mine) return assemblePng(width, height, [...mine, ...theirs].sort((a, b) => a[0] - b[0]).map(([, part]) => part));
    drawFrameLabels({ width, height, data: frame }, input);
    // Then each thread compresses half of it.
    const mid = height >> 1;
    const bottom = ask(id, { frame: buffer, frameBytes, encode: { width, top: mid, rows: height - mid } });
    let top;
    try {
      top = encodePngPart(frame, width, 0, mid, false, true);
    } finally {
      await bottom.catch(() => {});
    }
    return assemblePng(width, height, [top, await bottom]);
  }

  // Decoded texture images (shared memory: the band thread reads them without a copy), kept
  // between frames: most screenshots of a scene use the same ones.
  const textures = new TextureCache();

  // Frames are taken one at a time, in order: a shared frame awaits its band thread.
  let queue = Promise.resolve();
  parentPort.on("message", ({ id, input, images }) => {
    queue = queue.then(async () => {
      try {
        if (Array.isArray(images) && images.length) input.images = textures.imagesFor(images);
        const { width, height } = input;
        const split = band && Number.isInteger(width) && Number.isInteger(height) && width <= 8192 && height <= 8192 && width * height >= SPLIT_MIN_PIXELS;
        // Encoded here, not on the event loop: compressing a 1080p frame takes ~100 ms.
        const png = split ? await renderShared(id, input) : assemblePng(width, height, [encodePngPart(renderScene(input).data, width, 0, height, true, true)]);
        const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
        parentPort.postMessage({ id, out: { width, height, png: bytes } });
      } catch (e) {
        parentPort.postMessage({ id, error: errorOf(e) });
      }
    });
  });
}
