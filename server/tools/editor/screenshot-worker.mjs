// Worker thread that runs the software renderer for take_screenshot, so a multi-second frame
// never blocks the event loop that serves everyone else. Plain JS that loads the TypeScript
// renderer through tsx (a runtime dependency, as bin/kiln.js uses it), because the production
// build bundles server code and has no file a worker could start from.
import { parentPort } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { renderScene } = await import(new URL("../../scene/render/index.ts", import.meta.url).href);

parentPort.on("message", ({ id, input }) => {
  try {
    const out = renderScene(input);
    parentPort.postMessage({ id, out }, [out.data.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: { name: e?.name ?? "Error", message: String(e?.message ?? e) } });
  }
});
