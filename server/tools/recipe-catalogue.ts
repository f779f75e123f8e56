/**
 * The tool registry as the recipe engine sees it (RecipeToolCatalogue), plus the store options
 * of a running Kiln. The registry imports the recipe tools, which need this catalogue, so the
 * lookups are deferred to call time (arrow functions): at module evaluation the registry's
 * `TOOLS` may not exist yet, at call time it always does.
 */
import { limitedJob, POOL, runNamedTask } from "../pipeline/worker/pool";
import { prepareRecipe, type PrepareRecipe, type RecipeStoreOptions, type RecipeToolCatalogue } from "../recipes";
import type { Kiln } from "../runtime";
import { allTools, findTool } from "./index";

/**
 * The registered tools a recipe step may call, for validating steps against the tools' own
 * schemas. Team administration (members, tokens, the audit log) is not a recipe step: a run's
 * step results are stored with the run, and a token's secret must never be.
 */
export const registryCatalogue: RecipeToolCatalogue = {
  getTool: (name) => {
    const tool = findTool(name);
    return tool && tool.group !== "teams" ? tool : undefined;
  },
  toolNames: () => allTools().filter((tool) => tool.group !== "teams").map((tool) => tool.name),
};

/**
 * Where a Kiln finds recipes: `<projectDir>/recipes/`, then `~/.kiln/recipes/` (os.homedir(),
 * so HOME is respected; the store resolves it on each call).
 */
export function recipeStore(kiln: Pick<Kiln, "config">): RecipeStoreOptions {
  return { projectDir: kiln.config.projectDir, catalogue: registryCatalogue, prepare: prepareOffLoop };
}

/** Below this many characters a text parses in a few milliseconds: not worth a worker's round trip. */
const OFFLOAD_MIN_CHARS = 4096;

/**
 * The costly, registry-free part of validating a recipe text (YAML, schema, compile rules) in a
 * worker thread of the pipeline's pool, so a big text never blocks other clients; the tool
 * checks then run here, in slices (validateRecipeAsync). At most POOL.recipeJobs at once: one
 * more is 503 BUSY with Retry-After. The worker needs no tool registry: the work it does is
 * plain data in, plain data out (PreparedRecipe), so the registry stays in one place.
 */
export const prepareOffLoop: PrepareRecipe = async (text, options) => {
  if (typeof text !== "string" || text.length < OFFLOAD_MIN_CHARS) return prepareRecipe(text, options);
  return limitedJob("recipe", POOL.recipeJobs, POOL.recipeRetryAfterSeconds, "big recipe texts being parsed", () =>
    runNamedTask("prepareRecipe", { text, options }, () => prepareRecipe(text, options)));
};
