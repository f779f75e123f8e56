// Entry of a pipeline worker thread (see pool.ts). Plain JavaScript so that Node can start it as
// it is, in `next start` as in tests: it registers tsx in this thread and loads the TypeScript
// tasks from the source tree, as bin/kiln.js does for the CLI. Nothing here is bundled by Next.js.
import { register } from "tsx/esm/api";

register();
const { runPackedTask } = await import(new URL("./codec-tasks.ts", import.meta.url).href);

export default runPackedTask;
