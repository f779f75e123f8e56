/**
 * release_app: hands a disconnected live application's scene back to Kiln. While an app that was
 * live is away (it crashed, or Kiln restarted under it), its tools answer 503 rather than change
 * Kiln's copy behind the artist's back; this is the explicit "work without it" (docs/bridges.md).
 */
import { z } from "zod";
import { defineTool } from "../define-tool";
import { appId } from "../schemas";

export const releaseApp = defineTool({
  name: "release_app",
  group: "pipeline",
  access: "write",
  idempotent: true,
  description: "Hand a disconnected live application's scene back to Kiln: its tools act on Kiln's embedded scene again (as after the app's goodbye) until it connects again. 409 APP_LIVE while it is connected or connecting.",
  input: z.strictObject({ app: appId() }),
  output: z.object({ app: z.string(), connection: z.enum(["embedded", "live", "disconnected"]) }),
  handler: async (input, { kiln }) => ({ app: input.app, connection: (await kiln.live.release(input.app)).connection }),
});
