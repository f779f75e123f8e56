/**
 * Result types of the recipe tools, derived from their zod output schemas (type-only imports:
 * no server code reaches the browser). The tRPC procedures are typed `unknown` because they are
 * generated from the registry, so the builder names the shapes it relies on here.
 */
import type { z } from "zod";
import type {
  getRecipeInfo, getRecipeRun, listRecipeRuns, listRecipesTool, runRecipeTool, saveRecipeTool, validateRecipeTool,
} from "@/server/tools/recipes";

/** list_recipes. */
export type RecipeList = z.output<(typeof listRecipesTool)["output"]>;
/** One recipe of list_recipes. */
export type RecipeEntry = RecipeList["recipes"][number];
/** get_recipe_info. */
export type RecipeInfo = z.output<(typeof getRecipeInfo)["output"]>;
/** validate_recipe. */
export type Validation = z.output<(typeof validateRecipeTool)["output"]>;
/** save_recipe. */
export type SaveResult = z.output<(typeof saveRecipeTool)["output"]>;
/** run_recipe. */
export type RunResult = z.output<(typeof runRecipeTool)["output"]>;
/** list_recipe_runs. */
export type RunList = z.output<(typeof listRecipeRuns)["output"]>;
/** get_recipe_run. */
export type StoredRun = z.output<(typeof getRecipeRun)["output"]>;
