// Worker thread that runs the software renderer for take_screenshot, so a multi-second frame
// never blocks the event loop that serves everyone else. Plain JS that loads the TypeScript
// renderer through tsx (a runtime dependency, as bin/kiln.js uses it), because the production
// build bundles server code and has no file a worker could start from.
import { parentPort } from "node:worker_threads";
import { PNG } from "pngjs";
import { register } from "tsx/esm/api";

register();
const { renderScene } = await import(new URL("../../scene/render/index.ts", import.meta.url).href);

/** PNG with light compression: screenshots are written often and read rarely. Encoded here: a
 *  1080p frame takes ~100 ms to compress, which would otherwise stall the event loop. */
function encodePng({ width, height, data }) {
  const png = new PNG({ width, height, colorType: 6 });
  png.data = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return PNG.sync.write(png, { deflateLevel: 1, filterType: 1 });
}

parentPort.on("message", ({ id, input }) => {
  try {
    const out = renderScene(input);
    const png = encodePng(out);
    const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
    parentPort.postMessage({ id, out: { width: out.width, height: out.height, png: bytes } });
  } catch (e) {
    parentPort.postMessage({ id, error: { name: e?.name ?? "Error", message: String(e?.message ?? e) } });
  }
});
