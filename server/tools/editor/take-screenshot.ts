/** take_screenshot: renders the active scene from its camera to a PNG under .kiln/screenshots. */
import { createHash, randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { PNG } from "pngjs";
import { z } from "zod";
import { renderScene } from "../../scene/render";
import { buildRenderInput } from "../../scene/render-view";
import { defineTool } from "../define-tool";
import { appParam, name, num } from "../schemas";
import { appOut } from "./scene-tool";

const size = () => num(z.number().int().min(16).max(4096));

export const takeScreenshot = defineTool({
  name: "take_screenshot",
  group: "editor",
  access: "write",
  description: "Render the active scene from its camera to a PNG (headless software renderer).",
  input: z.strictObject({ width: size(), height: size(), scene: name("Scene name").optional(), app: appParam() }),
  output: z.object({
    id: z.string(), app: appOut, scene: z.string(), width: z.number(), height: z.number(),
    bytes: z.number(), sha256: z.string(), url: z.string(), duration_ms: z.number(),
  }),
  handler: async (input, { kiln }) => {
    const started = performance.now();
    const app = input.app ?? kiln.config.defaultApp;
    const view = buildRenderInput(kiln.workspace.state, app, input.width, input.height, input.scene);
    const image = renderScene(view);
    const png = encodePng(image.width, image.height, image.data);
    const id = randomUUID();
    const file = path.join(kiln.screenshotsDir, `${id}.png`);
    try {
      await writeFile(file, png, { flag: "wx" });
    } catch (error) {
      // A disk that filled up mid-write leaves part of a PNG: never leave it to be served.
      await rm(file, { force: true });
      throw error;
    }
    const scene = input.scene ?? (kiln.workspace.state.get(`app/${app}`) as { activeScene: string }).activeScene;
    return {
      id, app, scene, width: image.width, height: image.height, bytes: png.length,
      sha256: createHash("sha256").update(png).digest("hex"), url: `/screenshots/${id}.png`,
      duration_ms: Math.round(performance.now() - started),
    };
  },
});

/** PNG with light compression: screenshots are written often and read rarely. */
function encodePng(width: number, height: number, rgba: Uint8ClampedArray): Buffer {
  const png = new PNG({ width, height, colorType: 6 });
  png.data = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  return PNG.sync.write(png, { deflateLevel: 1, filterType: 1 });
}
