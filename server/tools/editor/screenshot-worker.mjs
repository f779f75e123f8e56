// Worker threads that run the software renderer for take_screenshot, so a multi-second frame
// never blocks the event loop that serves everyone else. Plain JS that loads the TypeScript
// renderer through tsx (a runtime dependency, as bin/kiln.js uses it), because the production
// build bundles server code and has no file a worker could start from.
//
// Two roles (workerData.role): the "frame" worker takes frames from the service one at a time;
// when it has a "band" worker beside it (a MessagePort in workerData.band) and the frame is big,
// both draw it: the frame's horizontal bands are taken from a shared counter by whichever thread
// is free, and written straight into one shared RGBA buffer, so neither waits on a badly split
// frame (the sky is cheap, the ground and objects are not) and nothing is copied back.
import { parentPort, workerData } from "node:worker_threads";
import { PNG } from "pngjs";
import { register } from "tsx/esm/api";

register();
const { renderScene, planFrame, renderBand, drawFrameLabels } = await import(new URL("../../scene/render/index.ts", import.meta.url).href);

/** Output rows per band: small enough that two threads finish within a band of each other, big
 *  enough that transforming every mesh once per band stays a small part of the frame. A scene of
 *  many triangles gets four bands only: each band transforms and sorts out every triangle again. */
const BAND_ROWS = 96;
const MANY_TRIANGLES = 200_000;

function bandRowsFor(input) {
  let triangles = 0;
  for (const m of Array.isArray(input.meshes) ? input.meshes : []) triangles += (m?.indices?.length ?? 0) / 3;
  return triangles > MANY_TRIANGLES ? Math.max(BAND_ROWS, Math.ceil(input.height / 4)) : BAND_ROWS;
}
/** Frames with fewer pixels than this are drawn by one thread: the second would spend longer on
 *  its own copy of the shadow maps than it saves. */
const SPLIT_MIN_PIXELS = 640 * 480;

/** PNG with light compression: screenshots are written often and read rarely. Encoded here: a
 *  1080p frame takes ~100 ms to compress, which would otherwise stall the event loop. */
function encodePng({ width, height, data }) {
  const png = new PNG({ width, height, colorType: 6 });
  png.data = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return PNG.sync.write(png, { deflateLevel: 1, filterType: 1 });
}

/** Draws bands of the frame until the shared counter says none is left. */
function drawBands(plan, frame, counter, bandRows) {
  const rowBytes = plan.width * 4;
  for (;;) {
    const top = Atomics.add(counter, 0, 1) * bandRows;
    if (top >= plan.height) return;
    const rows = Math.min(bandRows, plan.height - top);
    renderBand(plan, top, rows, frame.subarray(top * rowBytes, (top + rows) * rowBytes));
  }
}

const errorOf = (e) => ({ name: e?.name ?? "Error", message: String(e?.message ?? e) });

if (workerData?.role === "band") {
  const port = workerData.port;
  port.on("message", ({ id, input, frame, counter, bandRows }) => {
    try {
      drawBands(planFrame(input), new Uint8ClampedArray(frame), new Int32Array(counter), bandRows);
      port.postMessage({ id });
    } catch (e) {
      port.postMessage({ id, error: errorOf(e) });
    }
  });
} else {
  const band = workerData?.band ?? null;
  const waiting = new Map();
  band?.on("message", ({ id, error }) => waiting.get(id)?.(error));

  /** The frame drawn by this thread and the band thread together. */
  async function renderShared(id, input) {
    const frame = new Uint8ClampedArray(new SharedArrayBuffer(input.width * input.height * 4));
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const helped = new Promise((resolve, reject) => waiting.set(id, (error) => (error ? reject(Object.assign(new Error(error.message), { name: error.name })) : resolve())));
    const bandRows = bandRowsFor(input);
    // Posted first: both threads plan the frame (shadow maps) at the same time.
    band.postMessage({ id, input, frame: frame.buffer, counter: counter.buffer, bandRows });
    try {
      const plan = planFrame(input);
      drawBands(plan, frame, counter, bandRows);
      await helped;
    } finally {
      waiting.delete(id);
    }
    const out = { width: input.width, height: input.height, data: frame };
    drawFrameLabels(out, input);
    return out;
  }

  // Frames are taken one at a time, in order: a shared frame awaits its band thread.
  let queue = Promise.resolve();
  parentPort.on("message", ({ id, input }) => {
    queue = queue.then(async () => {
      try {
        const { width, height } = input;
        const split = band && Number.isInteger(width) && Number.isInteger(height) && width <= 8192 && height <= 8192 && width * height >= SPLIT_MIN_PIXELS;
        const out = split ? await renderShared(id, input) : renderScene(input);
        const png = encodePng(out);
        const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
        parentPort.postMessage({ id, out: { width: out.width, height: out.height, png: bytes } });
      } catch (e) {
        parentPort.postMessage({ id, error: errorOf(e) });
      }
    });
  });
}
