/**
 * Typed access to the recipe tools' tRPC procedures. The router is generated from the registry,
 * so TypeScript sees each procedure as "a query or a mutation, of unknown input and output";
 * these helpers pick the kind each tool has and give its result the type of its zod output.
 */
import type { useTRPC, useTRPCClient } from "./trpc";
import type { RecipeInfo, RecipeList, RunList, RunResult, SaveResult, StoredRun, Validation } from "./kiln-types";

type Proxy = ReturnType<typeof useTRPC>["tools"];
type Client = ReturnType<typeof useTRPCClient>["tools"];

/** A read tool's procedure (queryOptions, queryKey...). */
export type QueryTool = Extract<Proxy[string], { queryOptions: unknown }>;
/** A write tool's procedure (mutationOptions...). */
export type MutationTool = Extract<Proxy[string], { mutationOptions: unknown }>;

/** The procedure of a read tool, for useQuery(...queryOptions(input)). */
export function readTool(trpc: ReturnType<typeof useTRPC>, name: "list_recipes" | "get_recipe_info" | "list_recipe_runs" | "validate_recipe"): QueryTool {
  return trpc.tools[name] as QueryTool;
}

/** The procedure of a write tool, for useMutation(...mutationOptions()). */
export function writeTool(trpc: ReturnType<typeof useTRPC>, name: "delete_recipe" | "save_recipe" | "run_recipe"): MutationTool {
  return trpc.tools[name] as MutationTool;
}

/** Imperative calls to the recipe tools, typed by their outputs. */
export function recipeApi(client: ReturnType<typeof useTRPCClient>) {
  const tools = client.tools as unknown as Record<string, Client[string] & { query?(input: unknown): Promise<unknown>; mutate?(input: unknown): Promise<unknown> }>;
  const query = <T>(name: string, input: unknown) => tools[name].query!(input) as Promise<T>;
  const mutate = <T>(name: string, input: unknown) => tools[name].mutate!(input) as Promise<T>;
  return {
    listRecipes: () => query<RecipeList>("list_recipes", {}),
    recipeInfo: (recipe: string) => query<RecipeInfo>("get_recipe_info", { recipe }),
    validate: (yaml: string) => query<Validation>("validate_recipe", { yaml }),
    listRuns: (recipe: string, limit: number) => query<RunList>("list_recipe_runs", { recipe, limit }),
    getRun: (runId: string) => query<StoredRun>("get_recipe_run", { run_id: runId }),
    /** Starts a run and answers at once (status running); follow it with getRun. */
    start: (recipe: string, variables: Record<string, string | number | boolean>) => mutate<RunResult>("run_recipe", { recipe, variables, wait: false }),
    save: (name: string, yaml: string, overwrite: boolean, revision?: string) => mutate<SaveResult>("save_recipe", { name, yaml, overwrite, ...(revision ? { revision } : {}) }),
  };
}
