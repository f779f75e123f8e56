/**
 * The recipe tools (DECISIONS: "Recipes"): run, list, inspect and validate recipes, read the run
 * history, and save/delete project recipes for the browser builder. Recipe names are checked by
 * the input schemas (^[A-Za-z0-9-]+$) before any file is touched; the store checks them again.
 */
import { join } from "node:path";
import { z } from "zod";
import { conflict, invalid, notFound } from "../errors";
import {
  RECIPE_NAME_PATTERN, RecipeStoreError, deleteRecipe, findRecipe, listRecipes, recipeDirs, saveRecipe, validateRecipeAsync,
  type RecipeEntry, type RecipeFile, type RecipeValidation,
} from "../recipes";
import type { Kiln } from "../runtime";
import { defineTool } from "./define-tool";
import { prepareOffLoop, registryCatalogue, recipeStore } from "./recipe-catalogue";
import { cancelRun, startRecipe, type RunSource } from "./recipe-runner";
import { getRun, listRuns } from "./recipe-runs";
import { bool, num } from "./schemas";
import { actorOut, personFilter } from "../teams/attribution";
import { currentCaller } from "../teams/actor";
import { changedSince, recordSave, revisionOf, savedBy } from "./recipe-revisions";

const recipeName = (what = "The recipe's name") =>
  z.string().min(1, "a recipe name must not be empty").max(200)
    .regex(RECIPE_NAME_PATTERN, "a recipe name is letters, digits and hyphens only")
    .describe(`${what}: letters, digits and hyphens.`);
const variablesParam = () =>
  z.record(z.string().max(100), z.union([z.string().max(100_000), z.number().finite(), z.boolean()]))
    .describe("Run-time values that override the recipe's defaults.");

const issueOut = z.object({ path: z.string(), line: z.number(), column: z.number(), message: z.string() });
const validationOut = z.object({ valid: z.boolean(), errors: z.array(issueOut), warnings: z.array(issueOut) });
const stepOut = z.object({
  id: z.string(), name: z.string(), tool: z.string(), status: z.enum(["succeeded", "failed", "skipped"]),
  params: z.record(z.string(), z.unknown()).optional().describe("The params the tool was called with, placeholders filled (steps that called their tool)."),
  result: z.unknown().optional(),
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }).optional(),
  reason: z.string().optional(), duration_ms: z.number(),
});
const transactionOut = z.object({
  outcome: z.enum(["committed", "rolled_back", "not_started", "commit_failed", "rollback_failed"]),
  id: z.string().optional(), error: stepOut.shape.error,
});
const sceneChangesOut = z.array(z.object({ step_index: z.number(), step_id: z.string(), app: z.string(), from: z.string(), to: z.string() }))
  .describe("Steps that changed an app's active scene (create_scene, open_scene: their result's switched_from), in order.");
const runOut = z.object({
  run_id: z.string(), recipe: z.string(),
  status: z.enum(["running", "succeeded", "failed"]).describe("running only in the answer of run_recipe {wait: false}; follow the run with get_recipe_run."),
  variables: z.record(z.string(), z.unknown()), steps: z.array(stepOut),
  failed_steps: z.number().describe("Steps that failed; a run whose failed steps all have on_error: continue still succeeds."),
  active_scene_changes: sceneChangesOut,
  transaction: transactionOut.optional(), duration_ms: z.number().nullable(),
});
const storedRunFields = {
  run_id: z.string(), recipe: z.string(), source: z.string().nullable(), path: z.string().nullable(),
  status: z.enum(["running", "succeeded", "failed", "interrupted"]).meta({ description: "interrupted: the Kiln process stopped during the run (marked at its next start)" }),
  transaction: transactionOut.optional(), error: stepOut.shape.error, active_scene_changes: sceneChangesOut,
  interrupted_at: z.object({ index: z.number(), id: z.string().nullable(), name: z.string().nullable(), tool: z.string().nullable() }).optional()
    .meta({ description: "Where an interrupted run was cut off: the step index (0-based) and, when recorded in time, its id, name and tool." }),
  started_at: z.string(), duration_ms: z.number().nullable(),
  run_by: actorOut.describe('Who ran it ("Ada via Claude Desktop").'),
};
const entryOut = z.object({
  name: z.string(), description: z.string().optional(), source: z.enum(["project", "user"]), path: z.string(),
  shadowed: z.boolean(), shadowed_by: z.string().optional(), valid: z.boolean(), steps: z.number(), errors: z.array(issueOut),
});

// By name, not instanceof: a bundle may hold two copies of the store module.
const storeError = (error: unknown) =>
  (error as Error)?.name === "RecipeStoreError" ? invalid((error as RecipeStoreError).code, (error as Error).message) : error;
/** `<project>/recipes/<name>.yaml`: the only file save_recipe and delete_recipe touch. */
const projectFile = (kiln: Kiln, name: string) => join(recipeDirs(kiln.config.projectDir)[0].dir, `${name}.yaml`);

/** The recipe a name resolves to (project before user), or 404 RECIPE_NOT_FOUND. */
async function resolve(kiln: Kiln, name: string): Promise<RecipeFile> {
  const found = await findRecipe(recipeStore(kiln), name).catch((e) => { throw storeError(e); });
  if (found) return found;
  const searched = recipeDirs(kiln.config.projectDir).map((d) => d.dir);
  throw notFound("RECIPE_NOT_FOUND", `There is no recipe named "${name}" in ${searched.join(" or ")}.`, { recipe: name, searched });
}

/** Validates a text with its parse in a worker thread (503 BUSY when too many are under way). */
const validate = (text: string, variables?: Record<string, string | number | boolean>) =>
  validateRecipeAsync(text, registryCatalogue, { variables, prepare: prepareOffLoop });

const withoutRecipe = ({ valid, errors, warnings }: RecipeValidation) => ({ valid, errors, warnings });

/**
 * A stored recipe's validation with these run-time values: the store's own when none override
 * its defaults, or when it could not read the file at all (too big, not a file: its text is empty
 * and its validation says why), else the text validated again with them.
 */
async function fileValidation(file: RecipeFile, variables?: Record<string, string | number | boolean>): Promise<RecipeValidation> {
  const overridden = variables !== undefined && Object.keys(variables).length > 0;
  return overridden && file.text !== "" ? validate(file.text, variables) : file.validation;
}

/** The recipe run_recipe is asked for: a stored one by name, or YAML text (kiln --run-recipe sends its file so). */
async function recipeToRun(kiln: Kiln, input: { recipe?: string; yaml?: string; file?: string; variables?: Record<string, string | number | boolean> }) {
  if (input.yaml !== undefined) {
    const source: RunSource = input.file === undefined ? "inline" : "cli";
    return { label: input.file ?? "(inline yaml)", source, path: input.file, validation: await validate(input.yaml, input.variables) };
  }
  const file = await resolve(kiln, input.recipe!);
  return { label: input.recipe!, source: file.source as RunSource, path: file.path, validation: await fileValidation(file, input.variables) };
}

export const runRecipeTool = defineTool({
  name: "run_recipe",
  group: "recipes",
  access: "write",
  description:
    "Run a recipe (by name, or YAML text) with optional variables. Each step calls a tool; the result lists every step with its status, result or error, and time. " +
    "A run fails only when a step with on_error: stop fails (status 200, not an HTTP error); failed continue steps are counted in failed_steps. " +
    "With wait: false it answers at once with the run id and status running; get_recipe_run follows the run and cancel_recipe_run stops it.",
  input: z.strictObject({
    recipe: recipeName().optional(),
    yaml: z.string().min(1).max(1024 * 1024).optional().describe("Recipe text to run instead of a stored recipe."),
    file: z.string().min(1).max(4096).regex(/^[^\u0000-\u001f\u007f]+$/, "a path without control characters").optional()
      .describe("With yaml: the path of the file the text came from (kiln --run-recipe sends it); the run is recorded with source cli and this path."),
    variables: variablesParam().optional(),
    wait: bool().default(true).describe("false: answer at once with the run id (status running) instead of when the run ends."),
  }).refine((v) => (v.recipe === undefined) !== (v.yaml === undefined), { message: "give exactly one of recipe (a name) or yaml (the text)", path: ["recipe"] })
    .refine((v) => v.file === undefined || v.yaml !== undefined, { message: "file goes with yaml only", path: ["file"] }),
  output: runOut,
  handler: async (input, { kiln }) => {
    const { label, source, path, validation } = await recipeToRun(kiln, input);
    if (!validation.valid || !validation.recipe) {
      const [first] = validation.errors;
      const where = first ? `: line ${first.line}, column ${first.column}: ${first.message}` : "";
      const more = validation.errors.length > 1 ? ` (and ${validation.errors.length - 1} more; see details.errors)` : "";
      throw invalid("INVALID_RECIPE", `The recipe "${label}" is invalid${where}${more}`, {
        ...(path ? { path } : {}), errors: validation.errors, warnings: validation.warnings,
      });
    }
    const started = await startRecipe(kiln, validation.recipe, { variables: input.variables, source, path });
    if (input.wait) return started.done;
    started.done.catch((error) => console.error(`kiln: recipe run ${started.run_id} broke off:`, error));
    return {
      run_id: started.run_id, recipe: validation.recipe.name, status: "running" as const, variables: started.variables,
      steps: [], failed_steps: 0, active_scene_changes: [], duration_ms: null,
    };
  },
});

export const cancelRecipeRun = defineTool({
  name: "cancel_recipe_run",
  group: "recipes",
  access: "write",
  description: "Stop a run in progress: the step running finishes, the remaining steps are skipped and the run ends failed (a transaction recipe rolls back).",
  input: z.strictObject({ run_id: z.uuid("run_id is the UUID that run_recipe returned") }),
  output: z.object({ run_id: z.string(), cancelled: z.boolean() }),
  handler: async (input, { kiln }) => {
    const id = input.run_id.toLowerCase();
    if (cancelRun(id)) return { run_id: id, cancelled: true };
    const run = await getRun(kiln.db, id);
    if (!run) throw notFound("RECIPE_RUN_NOT_FOUND", `There is no recipe run "${input.run_id}".`, { run_id: input.run_id });
    if (run.status !== "running") throw conflict("RUN_FINISHED", `The run ${id} has already ended (${run.status}).`, { run_id: id, status: run.status });
    throw conflict("RUN_NOT_ACTIVE", `The run ${id} is marked running but is not in progress in this service (the process that ran it ended).`, { run_id: id });
  },
});

export const listRecipesTool = defineTool({
  name: "list_recipes",
  group: "recipes",
  access: "read",
  description: "List the recipes of ./recipes/ and ~/.kiln/recipes/; a recipe hidden by another of the same name is marked shadowed.",
  input: z.strictObject({}),
  output: z.object({ recipes: z.array(entryOut), directories: z.object({ project: z.string(), user: z.string() }) }),
  handler: async (_input, { kiln }) => {
    const [project, user] = recipeDirs(kiln.config.projectDir);
    return { recipes: await listRecipes(recipeStore(kiln)), directories: { project: project.dir, user: user.dir } };
  },
});

export const getRecipeInfo = defineTool({
  name: "get_recipe_info",
  group: "recipes",
  access: "read",
  description: "A recipe's details: the parsed recipe, its source (project or user) and path, its variables with defaults, its validation result, its YAML text and the files it shadows.",
  input: z.strictObject({ recipe: recipeName() }),
  output: z.object({
    name: z.string(), source: z.enum(["project", "user"]), path: z.string(),
    recipe: z.record(z.string(), z.unknown()).nullable(),
    variables: z.array(z.object({ name: z.string(), default: z.union([z.string(), z.number(), z.boolean()]), type: z.enum(["string", "number", "boolean"]) })),
    validation: validationOut, yaml: z.string(),
    shadows: z.array(z.object({ source: z.enum(["project", "user"]), path: z.string() })),
    revision: z.string().describe("A hash of the text: give it to save_recipe to be told when someone saved in between."),
    saved_by: z.object({ name: z.string(), user_id: z.string().nullable(), label: z.string(), at: z.string(), revision: z.string() }).nullable()
      .describe("Who saved this text through Kiln (null: unknown, e.g. edited on disk)."),
  }),
  handler: async (input, { kiln }) => {
    const file = await resolve(kiln, input.recipe);
    const shadows = (await listRecipes(recipeStore(kiln)))
      .filter((e) => e.name === file.name && e.shadowed)
      .map(({ source, path }) => ({ source, path }));
    const defaults = file.recipe?.variables ?? {};
    return {
      name: file.name, source: file.source, path: file.path, recipe: file.recipe ?? null,
      variables: Object.entries(defaults).map(([name, value]) => ({ name, default: value, type: typeof value as "string" | "number" | "boolean" })),
      validation: withoutRecipe(file.validation), yaml: file.text, shadows,
      revision: revisionOf(file.text), saved_by: await savedBy(kiln, file.name, revisionOf(file.text)),
    };
  },
});

export const validateRecipeTool = defineTool({
  name: "validate_recipe",
  group: "recipes",
  access: "read",
  description: "Validate a recipe (by name, or `yaml` text): structure, tool names, each step's params against its tool, variables and condition syntax. Every problem with its path, line and column.",
  input: z.strictObject({
    recipe: recipeName().optional(),
    yaml: z.string().max(1024 * 1024).optional().describe("Recipe text to validate instead of a stored recipe."),
    variables: variablesParam().optional(),
  }).refine((v) => (v.recipe === undefined) !== (v.yaml === undefined), { message: "give exactly one of recipe (a name) or yaml (the text)", path: ["recipe"] }),
  output: validationOut,
  handler: async (input, { kiln }) => {
    const validation = input.yaml !== undefined ? await validate(input.yaml, input.variables) : await fileValidation(await resolve(kiln, input.recipe!), input.variables);
    return withoutRecipe(validation);
  },
});

export const listRecipeRuns = defineTool({
  name: "list_recipe_runs",
  group: "recipes",
  access: "read",
  description: "Recipe runs, newest first (optionally of one recipe or one person), with who ran them, their status, time, variables and step counts.",
  input: z.strictObject({
    recipe: recipeName("Only runs of this recipe").optional(),
    person: personFilter().optional(),
    limit: num(z.number().int().min(1).max(500)).default(50),
    offset: num(z.number().int().min(0)).default(0),
  }),
  output: z.object({
    runs: z.array(z.object({ ...storedRunFields, variables: z.record(z.string(), z.unknown()).describe("The run's effective variables: the defaults with its overrides."), step_counts: z.object({ total: z.number(), succeeded: z.number(), failed: z.number(), skipped: z.number() }) })),
    total: z.number(), limit: z.number(), offset: z.number(),
  }),
  handler: (input, { kiln }) => listRuns(kiln.db, input),
});

export const getRecipeRun = defineTool({
  name: "get_recipe_run",
  group: "recipes",
  access: "read",
  description: "One recipe run with every finished step; while a run is in progress (status running) its steps grow, so it can be polled.",
  input: z.strictObject({ run_id: z.uuid("run_id is the UUID that run_recipe returned") }),
  output: z.object({ ...storedRunFields, variables: z.record(z.string(), z.unknown()), steps: z.array(stepOut), failed_steps: z.number() }),
  handler: async (input, { kiln }) => {
    const run = await getRun(kiln.db, input.run_id.toLowerCase());
    if (!run) throw notFound("RECIPE_RUN_NOT_FOUND", `There is no recipe run "${input.run_id}".`, { run_id: input.run_id });
    return { ...run, failed_steps: run.steps.filter((step) => step.status === "failed").length };
  },
});

// Saves and deletes check, then write: serialised so two saves cannot both pass the check.
let fileLock: Promise<unknown> = Promise.resolve();
function serialised<T>(fn: () => Promise<T>): Promise<T> {
  const next = fileLock.then(fn, fn);
  fileLock = next.catch(() => undefined);
  return next;
}

const sameName = (entries: RecipeEntry[], name: string, source: RecipeEntry["source"]) =>
  entries.filter((e) => e.name === name && e.source === source);

export const saveRecipeTool = defineTool({
  name: "save_recipe",
  group: "recipes",
  access: "write",
  destructive: true,
  description: "Save recipe text as ./recipes/<name>.yaml (its name field must be <name>). Refuses to replace an existing project recipe unless overwrite is true. Drafts that do not validate are saved; the answer carries their validation.",
  input: z.strictObject({
    name: recipeName(),
    yaml: z.string().min(1).max(1024 * 1024),
    overwrite: bool().default(false).describe("Replace an existing project recipe of this name."),
    revision: z.string().regex(/^[0-9a-f]{16}$/, "a revision from get_recipe_info").optional()
      .describe("The revision you loaded (get_recipe_info): replaces the file only if it is still that text, else 409 RECIPE_CHANGED with theirs. Implies overwrite."),
  }),
  output: z.object({
    name: z.string(), path: z.string(), created: z.boolean(), revision: z.string(), ...validationOut.shape,
    user_recipe: z.string().nullable().describe("Path of a user-wide recipe of the same name, which this one shadows."),
    shadows: z.array(z.string()),
  }),
  handler: (input, { kiln }) => serialised(async () => {
    kiln.teams.locks.refuseOther(`recipe/${input.name}`, currentCaller().actor);
    const store = recipeStore(kiln);
    const target = projectFile(kiln, input.name);
    const entries = await listRecipes(store);
    const occupant = entries.find((e) => e.path === target);
    if (occupant && occupant.name !== input.name) {
      throw conflict("RECIPE_FILE_CONFLICT", `${target} holds the recipe "${occupant.name}"; rename or remove that file first.`, { path: target, holds: occupant.name });
    }
    const existing = sameName(entries, input.name, "project");
    if (input.revision !== undefined) {
      const current = occupant ? await findRecipe(store, input.name).catch(() => undefined) : undefined;
      const text = current?.path === target ? current.text : null;
      if (text === null || revisionOf(text) !== input.revision) throw await changedSince(kiln, input.name, text === null ? null : { text });
    } else if (existing.length > 0 && !input.overwrite) {
      throw conflict("RECIPE_EXISTS", `A project recipe named "${input.name}" exists (${existing[0].path}); pass overwrite: true to replace it.`, { path: existing[0].path });
    }
    const { path } = await saveRecipe(kiln.config.projectDir, input.name, input.yaml, prepareOffLoop).catch((e) => { throw storeError(e); });
    const revision = revisionOf(input.yaml);
    await recordSave(kiln, input.name, revision, currentCaller().actor);
    const validation = await validate(input.yaml);
    const others = entries.filter((e) => e.name === input.name && e.path !== path);
    return {
      name: input.name, path, created: !occupant, revision, ...withoutRecipe(validation),
      user_recipe: sameName(entries, input.name, "user")[0]?.path ?? null,
      shadows: others.map((e) => e.path),
    };
  }),
});

export const deleteRecipeTool = defineTool({
  name: "delete_recipe",
  group: "recipes",
  access: "write",
  destructive: true,
  description: "Delete the project recipe ./recipes/<name>.yaml. User-wide recipes (~/.kiln/recipes) are never deleted.",
  input: z.strictObject({ name: recipeName() }),
  output: z.object({
    name: z.string(), deleted: z.string(),
    now_resolves_to: z.object({ source: z.enum(["project", "user"]), path: z.string() }).nullable()
      .describe("The recipe that the name finds now (a shadowed one), or null."),
  }),
  handler: (input, { kiln }) => serialised(async () => {
    kiln.teams.locks.refuseOther(`recipe/${input.name}`, currentCaller().actor);
    const store = recipeStore(kiln);
    const target = projectFile(kiln, input.name);
    const entries = await listRecipes(store);
    if (!entries.some((e) => e.path === target && e.name === input.name)) {
      const elsewhere = entries.find((e) => e.name === input.name);
      const hint = elsewhere
        ? elsewhere.source === "user" ? `; the user-wide recipe ${elsewhere.path} is not deleted by Kiln` : `; it lives in ${elsewhere.path}, which Kiln does not manage`
        : "";
      throw notFound("RECIPE_NOT_FOUND", `There is no project recipe file ${input.name}.yaml${hint}.`, { recipe: input.name });
    }
    await deleteRecipe(kiln.config.projectDir, input.name).catch((e) => { throw storeError(e); });
    const now = await findRecipe(store, input.name);
    return { name: input.name, deleted: target, now_resolves_to: now ? { source: now.source, path: now.path } : null };
  }),
});

/** The recipe tools, in catalogue order. */
export const RECIPE_TOOLS = [
  runRecipeTool, cancelRecipeRun, listRecipesTool, getRecipeInfo, validateRecipeTool, listRecipeRuns, getRecipeRun, saveRecipeTool, deleteRecipeTool,
] as const;
