/**
 * `kiln --run-recipe <file> [--var name=value]... [--json] [--server <url>]`.
 *
 * The file is validated first against this Kiln's tool registry (exit 2 with `file:line:column:
 * message` lines when invalid). Then it runs where the project's state lives:
 * - `--server <url>`: the service runs it (run_recipe {yaml, file, wait: false}; KILN_TOKEN is
 *   sent when set), so the run is in its history with source cli; the CLI follows it with
 *   get_recipe_run, printing each step as it finishes, and Ctrl-C calls cancel_recipe_run;
 * - else, when another process owns the project (server/ownership) and serves it at a URL
 *   (`.kiln/service.json`): the same, with a note on stderr (an in-process run would change the
 *   database behind the service's memory); an owner that serves no URL: exit 3;
 * - else in-process, owning the project meanwhile: its database opened here, the run recorded
 *   in RecipeRun.
 * Exit codes: 0 succeeded (failed on_error: continue steps included), 1 the run failed (a stop
 * step failed, it was interrupted or broke off), 2 invalid recipe or usage,
 * 3 the run could not start (service unreachable or refusing, project data cannot be opened).
 */
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  DEFAULT_PARSE_LIMITS, parseVarAssignment, validateRecipe,
  type Recipe, type RecipeRun, type RunEvent, type VariableValue,
} from "../recipes";
import { formatIssues, painter, stepPrinter, summaryLines } from "./recipe-output";
import { toolClient } from "./tool-client";

const USAGE = `Usage: kiln --run-recipe <file> [--var name=value]... [--json] [--server <url>]
  --var name=value   override a variable; the value is read as YAML (100 → number, true → boolean;
                     quote to keep text: --var "code='007'"); repeatable
  --json             print the run result as JSON only (or the validation result when invalid)
  --server <url>     run the steps against a running Kiln (default: the service serving this
                     project, if one runs; otherwise in-process on ./.kiln)
Exit: 0 succeeded (steps with on_error: continue may have failed), 1 the run failed,
      2 invalid recipe or usage, 3 could not run.`;

interface Options { file: string; variables: Record<string, VariableValue>; json: boolean; server?: string }

class UsageError extends Error {}

function parseArgs(args: string[]): Options {
  let file: string | undefined;
  let server: string | undefined;
  let json = false;
  const variables: Record<string, VariableValue> = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].startsWith("--") && args[i].includes("=") ? [args[i].slice(0, args[i].indexOf("=")), args[i].slice(args[i].indexOf("=") + 1)] : [args[i], undefined];
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === "--run-recipe") file = value();
    else if (flag === "--var") {
      const { name, value: v } = parseVarAssignment(value());
      variables[name] = v;
    } else if (flag === "--json" && inline === undefined) json = true;
    else if (flag === "--server") server = value();
    else throw new UsageError(`unknown argument "${args[i]}"`);
  }
  if (!file) throw new UsageError("--run-recipe needs a recipe file");
  if (server !== undefined) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new UsageError(`--server expects a URL such as http://127.0.0.1:8080, not "${server}"`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--server expects an http:// or https:// URL, not "${server}"`);
    server = url.origin;
  }
  return { file, variables, json, server };
}

type Runner = (
  recipe: Recipe, variables: Record<string, VariableValue>, onStep: (e: RunEvent) => void, signal: AbortSignal,
) => Promise<RecipeRun & { run_id: string | null }>;

/** How often a run on a service is polled for finished steps (the service writes them at most every 200 ms). */
const FOLLOW_MS = 100;

async function inProcess(file: string): Promise<{ run: Runner } | { error: string }> {
  const { getKiln, stopKiln } = await import("../runtime");
  const { executeRecipe } = await import("../tools/recipe-runner");
  try {
    const kiln = await getKiln();
    return {
      run: async (recipe, variables, onStep, signal) => {
        try {
          return await executeRecipe(kiln, recipe, { variables, source: "cli", path: file, onStep, signal });
        } finally {
          await stopKiln();
        }
      },
    };
  } catch (error) {
    return { error: `cannot open the project's data: ${(error as Error).message}` };
  }
}

/** Runs the command; resolves to the exit code. */
export async function runRecipeCommand(args: string[]): Promise<number> {
  let options: Options;
  try {
    options = parseArgs(args);
  } catch (error) {
    console.error(`kiln: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { file, variables, json } = options;
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error("not a file");
    if (info.size > DEFAULT_PARSE_LIMITS.maxBytes) throw new Error(`${info.size} bytes; the limit is ${DEFAULT_PARSE_LIMITS.maxBytes}`);
    text = await readFile(file, "utf8");
  } catch (error) {
    console.error(`kiln: cannot read ${file}: ${(error as Error).message}`);
    return 2;
  }

  const { registryCatalogue } = await import("../tools/recipe-catalogue");
  const validation = validateRecipe(text, registryCatalogue, { variables });
  for (const line of formatIssues(file, validation.errors, validation.warnings)) console.error(line);
  if (!validation.valid || !validation.recipe) {
    console.error(`kiln: ${file} is not a valid recipe (${validation.errors.length} error${validation.errors.length === 1 ? "" : "s"})`);
    if (json) console.log(JSON.stringify({ valid: false, errors: validation.errors, warnings: validation.warnings }, null, 2));
    return 2;
  }
  const recipe = validation.recipe;

  let server = options.server;
  if (!server) {
    // Claim the project, or find who owns it: one process at a time may change its data.
    const { loadConfig } = await import("../config");
    const { thisCommand, tryClaimProject } = await import("../ownership/owner");
    let claim: Awaited<ReturnType<typeof tryClaimProject>>;
    try {
      claim = await tryClaimProject(loadConfig(), thisCommand());
    } catch (error) {
      console.error(`kiln: cannot open the project's data: ${(error as Error).message}`);
      return 3;
    }
    if ("error" in claim) {
      if (!claim.owner?.url) {
        console.error(`kiln: ${claim.error.message}`);
        return 3;
      }
      // Even a service that refuses (say, a token is needed) owns the project's state: fail
      // below rather than change the database behind it.
      server = claim.owner.url;
      console.error(`kiln: the Kiln service (pid ${claim.owner.pid}) serves this project at ${server}; running the recipe there (--server chooses another)`);
    }
  }
  if (server) return withClient(server, (client) => execute(recipe, options, server!, { client, text }));
  return execute(recipe, options, "in-process");
}

/** Runs `fn` with a client for `base`, closing its connection afterwards. */
async function withClient<T>(base: string, fn: (client: ReturnType<typeof toolClient>) => Promise<T>): Promise<T> {
  const client = toolClient(base);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** Runs a valid recipe against `client`'s service, or in-process without one; prints; exit code. */
async function execute(
  recipe: Recipe, { file, variables, json }: Options, where: string, remote?: { client: ReturnType<typeof toolClient>; text: string },
): Promise<number> {
  let runner: Runner;
  if (remote) {
    const problem = await remote.client.probe();
    if (problem) {
      console.error(`kiln: ${problem.message}`);
      return 3;
    }
    runner = (_recipe, vars, onStep, signal) => followOnService(remote.client, { yaml: remote.text, file: resolve(file), variables: vars }, onStep, signal);
  } else {
    const local = await inProcess(resolve(file));
    if ("error" in local) {
      console.error(`kiln: ${local.error}`);
      return 3;
    }
    runner = local.run;
  }

  const paint = painter(process.stdout);
  const print = stepPrinter(recipe.steps, (line) => console.log(line), paint);
  const onStep = json ? () => undefined : (event: RunEvent) => event.type === "step_finished" && print(event.step);
  // The first Ctrl-C lets the current step finish and fails the rest, so the run is recorded
  // as failed rather than left "running"; a second one ends the process at once.
  const abort = new AbortController();
  const interrupt = () => {
    console.error("kiln: interrupted; finishing the current step (Ctrl-C again to quit at once)");
    abort.abort();
  };
  process.once("SIGINT", interrupt);
  let run: Awaited<ReturnType<Runner>>;
  try {
    run = await runner(recipe, variables, onStep, abort.signal);
  } catch (error) {
    console.error(`kiln: the run broke off: ${(error as Error).message}`);
    return 1;
  } finally {
    process.off("SIGINT", interrupt);
  }
  if (json) console.log(JSON.stringify(run, null, 2));
  else for (const line of summaryLines(run, paint, where)) console.log(line);
  return run.status === "succeeded" ? 0 : 1;
}

type StoredRun = Omit<RecipeRun, "status" | "duration_ms"> & {
  run_id: string; status: RecipeRun["status"] | "running"; duration_ms: number | null; error?: { code: string; message: string };
};

/**
 * Starts the run on the service (run_recipe {wait: false}, so it is recorded there with source
 * cli) and follows it with get_recipe_run, reporting each step once as it appears; Ctrl-C
 * (`signal`) asks the service to cancel it. Resolves to the run in run_recipe's shape.
 */
async function followOnService(
  client: ReturnType<typeof toolClient>, params: { yaml: string; file: string; variables: Record<string, VariableValue> },
  onStep: (e: RunEvent) => void, signal: AbortSignal,
): Promise<RecipeRun & { run_id: string }> {
  const started = (await client.invoke("run_recipe", { ...params, wait: false })) as StoredRun;
  let cancelled = false;
  let shown = 0;
  for (;;) {
    if (signal.aborted && !cancelled) {
      cancelled = true;
      await client.invoke("cancel_recipe_run", { run_id: started.run_id }).catch(() => undefined); // it may have just ended
    }
    const run = (await client.invoke("get_recipe_run", { run_id: started.run_id })) as StoredRun;
    for (; shown < run.steps.length; shown++) onStep({ type: "step_finished", index: shown, step: run.steps[shown] });
    if (run.status !== "running") {
      if (run.error) throw new Error(`${run.error.code}: ${run.error.message} (run ${run.run_id})`);
      const { run_id, recipe, variables, steps, failed_steps, active_scene_changes, transaction, duration_ms } = run;
      return { run_id, recipe, status: run.status, variables, steps, failed_steps, active_scene_changes: active_scene_changes ?? [], ...(transaction ? { transaction } : {}), duration_ms: duration_ms ?? 0 };
    }
    await new Promise((r) => setTimeout(r, FOLLOW_MS));
  }
}
