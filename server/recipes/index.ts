/**
 * Public surface of the recipe engine: parse → validate → compile → run, plus the file store.
 * The HTTP tools, the CLI and run persistence are built on these; see README.md for the flow.
 */
export type {
  InvokeTool,
  RecipeIssue,
  RecipeRun,
  RecipeToolCatalogue,
  RunEvent,
  RunTransaction,
  StepError,
  StepRecord,
  VariableValue,
} from "./types";
export {
  RECIPE_NAME_PATTERN,
  STEP_ID_PATTERN,
  VARIABLE_NAME_PATTERN,
  isVariableName,
  recipeJsonSchema,
  recipeSchema,
  recipeStepSchema,
  stepIdFromName,
} from "./schema";
export type { Recipe, RecipeInput, RecipeStep } from "./schema";
export { DEFAULT_PARSE_LIMITS, formatPath, parseRecipeYaml } from "./parse";
export type { ParseLimits, PathSegment, YamlPositions, YamlSource } from "./parse";
export { validateRecipe, validateRecipeAsync, validateWithHead } from "./validate";
export { listItems, packPrepared, prepareRecipe } from "./prepare";
export { CONDITION_LIMITS, ConditionLimitError, compileCondition, toCelValue } from "./condition";
export { MAX_RECIPE_STEPS } from "./limits";
export type { RecipeValidation, ValidateOptions } from "./validate";
export type { PrepareOptions, PrepareRecipe, PreparedRecipe, RecipeHead } from "./prepare";
export { compileRecipe } from "./compile";
export type { CompileIssue, RecipePlan } from "./compile";
export { RecipeCompileError, parseVarAssignment, runRecipe, toStepError } from "./run";
export { activeSceneChange, describeActiveSceneChange } from "./active-scene";
export type { ActiveSceneChange } from "./active-scene";
export type { RunOptions } from "./run";
export { RecipeStoreError, deleteRecipe, findRecipe, listRecipes, recipeDirs, saveRecipe } from "./store";
export type { RecipeEntry, RecipeFile, RecipeStoreOptions } from "./store";
