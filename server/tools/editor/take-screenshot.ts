/** take_screenshot: renders the active scene from its camera to a PNG under .kiln/screenshots. */
import { createHash, randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OVERLAYS, buildRenderInput } from "../../scene/render-view";
import { defineTool } from "../define-tool";
import { appParam, name, num } from "../schemas";
import { renderPngOffThread } from "./render-off-thread";
import { encodedImagesFor } from "./texture-images";
import { appOut } from "./scene-tool";
import { KilnError } from "../../errors";
import type { Kiln } from "../../runtime";
import { getScene } from "../../scene/state";
import type { AppId } from "../../scene/types";

const size = () => num(z.number().int().min(16).max(4096));

export const takeScreenshot = defineTool({
  name: "take_screenshot",
  group: "editor",
  access: "write",
  description: "Render the active scene from its camera to a PNG: by the live application when one is connected (Blender renders it), else by Kiln's headless software renderer.",
  input: z.strictObject({
    width: size(), height: size(), scene: name("Scene name").optional(), app: appParam(),
    overlay: z.array(z.enum(OVERLAYS)).max(OVERLAYS.length).optional()
      .describe("Helpers drawn on top by Kiln's renderer: grid (1 m on the ground), axes (the app's X/Y/Z from the origin), labels (object names). None by default; a live application's render has none."),
  }),
  output: z.object({
    id: z.string(), app: appOut, scene: z.string(), width: z.number(), height: z.number(),
    bytes: z.number(), sha256: z.string(), url: z.string(), duration_ms: z.number(),
    renderer: z.string().describe("kiln, or the live application's renderer (blender-workbench, ...)."),
  }),
  handler: async (input, { kiln }) => {
    const started = performance.now();
    const app = input.app ?? kiln.config.defaultApp;
    const scene = getScene(kiln.workspace.state, app, input.scene).name;
    const { png, width, height, renderer } = kiln.live.isLive(app)
      ? await liveRender(kiln, app, input.width, input.height, scene)
      : await kilnRender(kiln, app, input.width, input.height, scene, input.overlay ?? []);
    const id = randomUUID();
    const file = path.join(kiln.screenshotsDir, `${id}.png`);
    try {
      await writeFile(file, png, { flag: "wx" });
    } catch (error) {
      // A disk that filled up mid-write leaves part of a PNG: never leave it to be served.
      await rm(file, { force: true });
      throw error;
    }
    return {
      id, app, scene, width, height, bytes: png.length, renderer,
      sha256: createHash("sha256").update(png).digest("hex"), url: `/screenshots/${id}.png`,
      duration_ms: Math.round(performance.now() - started),
    };
  },
});

async function kilnRender(kiln: Kiln, app: AppId, width: number, height: number, scene: string, overlay: (typeof OVERLAYS)[number][]) {
  const state = kiln.workspace.state;
  const input = buildRenderInput(state, app, width, height, scene, overlay);
  const image = await renderPngOffThread(input, encodedImagesFor(state, input)); // textures are decoded on the worker
  return { png: image.png, width: image.width, height: image.height, renderer: "kiln" };
}

/** The live application renders its own scene from its camera (docs/bridges.md, `render`). */
async function liveRender(kiln: Kiln, app: AppId, width: number, height: number, scene: string) {
  const { result, blobs } = await kiln.live.request(app, "render", { width, height, scene });
  const r = result as { blob?: string; engine?: string };
  const blob = r.blob ? blobs.get(r.blob) : undefined;
  const png = blob?.kind === "png" ? Buffer.from(blob.parts.data) : undefined;
  if (!png || png.subarray(0, 8).toString("hex") !== "89504e470d0a1a0a")
    throw new KilnError("APP_BAD_REPLY", `The live ${app} answered the render without a PNG image.`, 502, { app });
  return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20), renderer: `${app}-${(r.engine ?? "render").replace(/^blender_/i, "")}`.toLowerCase() };
}
