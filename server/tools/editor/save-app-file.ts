/** save_app_file: the live application saves its own file (File > Save, or Save As with a path). */
import { z } from "zod";
import { conflict } from "../../errors";
import { defineTool } from "../define-tool";
import { appId } from "../schemas";
import { appFileTarget } from "./app-file-path";
import { appOut } from "./scene-tool";

/** The file extension each application saves. */
const EXTENSIONS = { blender: ".blend", godot: ".tscn", unity: ".unity" } as const;

export const saveAppFile = defineTool({
  name: "save_app_file",
  group: "editor",
  access: "write",
  description: "Make the live application save its file, where it is or (path) inside the project folder. Embedded apps have no file: 409 NOT_LIVE.",
  input: z.strictObject({
    app: appId(),
    path: z.string().min(1).max(1000).optional().describe("Where to save, relative to the project folder (e.g. scenes/level.blend); default: the file's own path."),
  }),
  output: z.object({ app: appOut, file: z.string() }),
  handler: async (input, { kiln }) => {
    if (!kiln.live.isLive(input.app)) {
      const { connection } = kiln.live.status(input.app);
      throw conflict("NOT_LIVE", `${input.app} is ${connection === "disconnected" ? "disconnected" : "embedded in Kiln"}: only a live application has a file to save.`, { app: input.app, connection });
    }
    const target = input.path === undefined ? undefined : await appFileTarget(kiln.config.projectDir, kiln.config.home, input.path, EXTENSIONS[input.app]);
    const { result } = await kiln.live.request(input.app, "save", target ? { path: target } : {});
    const file = (result as { file?: unknown }).file;
    return { app: input.app, file: typeof file === "string" ? file : target ?? "" };
  },
});
