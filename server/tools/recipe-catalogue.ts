/**
 * The tool registry as the recipe engine sees it (RecipeToolCatalogue), plus the store options
 * of a running Kiln. The registry imports the recipe tools, which need this catalogue, so the
 * lookups are deferred to call time (arrow functions): at module evaluation the registry's
 * `TOOLS` may not exist yet, at call time it always does.
 */
import type { RecipeStoreOptions, RecipeToolCatalogue } from "../recipes";
import type { Kiln } from "../runtime";
import { allTools, findTool } from "./index";

/** Every registered tool, for validating recipe steps against the tools' own schemas. */
export const registryCatalogue: RecipeToolCatalogue = {
  getTool: (name) => findTool(name),
  toolNames: () => allTools().map((tool) => tool.name),
};

/**
 * Where a Kiln finds recipes: `<projectDir>/recipes/`, then `~/.kiln/recipes/` (os.homedir(),
 * so HOME is respected; the store resolves it on each call).
 */
export function recipeStore(kiln: Pick<Kiln, "config">): RecipeStoreOptions {
  return { projectDir: kiln.config.projectDir, catalogue: registryCatalogue };
}
