// Entry of a pool worker thread (see pool.ts). Plain JavaScript so that Node can start it as
// it is, in `next start` as in tests: it registers tsx in this thread and loads the TypeScript
// tasks from the source tree, as bin/kiln.js does for the CLI. Nothing here is bundled by Next.js.
// The default export runs the pipeline's codec tasks; named exports are the other tasks that
// pool.ts runs by name (runNamedTask), each loaded on its first use.
import { register } from "tsx/esm/api";

register();
const { runPackedTask } = await import(new URL("./codec-tasks.ts", import.meta.url).href);

export default runPackedTask;

let recipes;
/** Recipe text → PreparedRecipe, packed (server/recipes/prepare.ts): YAML, schema and compile rules, no tool registry. */
export async function prepareRecipe({ text, options }) {
  recipes ??= import(new URL("../../recipes/prepare.ts", import.meta.url).href);
  const { packPrepared, prepareRecipe } = await recipes;
  return packPrepared(prepareRecipe(text, options));
}
