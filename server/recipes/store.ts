/**
 * Recipe files on disk. Recipes are found by their `name` field, not their file name, in
 * `<project>/recipes/` and then `~/.kiln/recipes/` (files *.yaml / *.yml). Invariants:
 * - a name must match ^[A-Za-z0-9-]+$ before any file-system call, so no path can be smuggled in;
 * - when several files declare one name, the winner is: project before user, then the file
 *   named `<name>.yaml`/`.yml`, then `.yaml` before `.yml`, then file-name order; the others are
 *   listed as shadowed (so a saved `<name>.yaml` always takes effect in its folder);
 * - an unreadable, oversized or invalid file is listed with its errors; it never breaks a listing;
 * - writes go only to `<project>/recipes/<name>.yaml`, atomically (temp file + rename).
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, extname, join } from "node:path";
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from "./parse";
import { RECIPE_NAME_PATTERN, type Recipe } from "./schema";
import type { RecipeIssue, RecipeToolCatalogue } from "./types";
import { listItems, prepareRecipe, type PrepareRecipe } from "./prepare";
import { validateWithHead, type RecipeValidation } from "./validate";

/** Where to look and what to validate against. */
export interface RecipeStoreOptions {
  /** The project directory; its `recipes/` folder holds project-local recipes. */
  projectDir: string;
  /** Home directory for `~/.kiln/recipes/`; defaults to os.homedir() (so HOME is respected). */
  homeDir?: string;
  catalogue: RecipeToolCatalogue;
  limits?: Partial<ParseLimits>;
  /** Where files are parsed (validateRecipeAsync); the service passes its worker pool. */
  prepare?: PrepareRecipe;
}

/** One recipe file as listed. */
export interface RecipeEntry {
  /** The declared `name`, or the file name without extension when the file declares none. */
  name: string;
  description?: string;
  source: "project" | "user";
  path: string;
  /** True when another file with the same name wins (see module comment); `shadowed_by` is it. */
  shadowed: boolean;
  shadowed_by?: string;
  valid: boolean;
  /** Number of steps (0 when the file has no readable steps). */
  steps: number;
  errors: RecipeIssue[];
}

/** A recipe found by name, with its text and full validation. */
export interface RecipeFile extends RecipeEntry {
  text: string;
  recipe?: Recipe;
  validation: RecipeValidation;
}

/** A store call refused its input; `code` maps onto the HTTP error codes. */
export class RecipeStoreError extends Error {
  constructor(
    readonly code: "INVALID_RECIPE_NAME" | "INVALID_RECIPE" | "NAME_MISMATCH",
    message: string,
  ) {
    super(message);
    this.name = "RecipeStoreError";
  }
}

function assertName(name: string): void {
  if (typeof name !== "string" || !RECIPE_NAME_PATTERN.test(name)) {
    throw new RecipeStoreError("INVALID_RECIPE_NAME", `"${name}" is not a recipe name: use letters, digits and hyphens only`);
  }
}

/** The project-local and user-wide recipe folders, in lookup order. */
export function recipeDirs(projectDir: string, homeDir: string = homedir()) {
  return [
    { source: "project" as const, dir: join(projectDir, "recipes") },
    { source: "user" as const, dir: join(homeDir, ".kiln", "recipes") },
  ];
}

const isRecipeFile = (file: string) => /\.ya?ml$/i.test(file);
const stem = (file: string) => file.slice(0, -extname(file).length);

/**
 * Validated files by path, reused while the file's identity and times are unchanged, so listing
 * a folder of big recipes parses each only once. Per catalogue, since validation depends on it.
 */
const loaded = new WeakMap<RecipeToolCatalogue, Map<string, { stamp: string; file: RecipeFile }>>();

/** Reads and validates one file (or reuses the last result for it); undefined when it does not exist. */
async function loadFile(
  options: RecipeStoreOptions,
  source: RecipeEntry["source"],
  dir: string,
  file: string,
): Promise<RecipeFile | undefined> {
  const path = join(dir, file);
  const cache = loaded.get(options.catalogue) ?? loaded.set(options.catalogue, new Map()).get(options.catalogue)!;
  let stamp: string | undefined;
  try {
    const info = await stat(path);
    stamp = `${source}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}:${JSON.stringify(options.limits ?? null)}`;
  } catch {
    // readFresh reports what is wrong with the path.
  }
  const hit = stamp === undefined ? undefined : cache.get(path);
  if (hit && hit.stamp === stamp) return { ...hit.file };
  const fresh = await readFresh(options, source, dir, file);
  if (fresh && stamp !== undefined) cache.set(path, { stamp, file: { ...fresh } });
  else cache.delete(path);
  return fresh;
}

async function readFresh(
  options: RecipeStoreOptions,
  source: RecipeEntry["source"],
  dir: string,
  file: string,
): Promise<RecipeFile | undefined> {
  const path = join(dir, file);
  const maxBytes = options.limits?.maxBytes ?? DEFAULT_PARSE_LIMITS.maxBytes;
  const broken = (message: string): RecipeFile => {
    const errors = [{ path: "", line: 1, column: 1, message }];
    return { name: stem(file), source, path, shadowed: false, valid: false, steps: 0, errors, text: "", validation: { valid: false, errors, warnings: [] } };
  };
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) return broken("not a regular file");
    if (info.size > maxBytes) return broken(`the file is ${info.size} bytes; the limit is ${maxBytes} bytes`);
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return broken(`cannot read the file: ${(error as Error).message}`);
  }
  const { validation, head } = await validateWithHead(text, options.catalogue, { limits: options.limits, prepare: options.prepare });
  // The declared name matters even when the file is otherwise invalid: it still shadows.
  const declared = typeof head.name === "string" && RECIPE_NAME_PATTERN.test(head.name) ? head.name : undefined;
  return {
    name: declared ?? stem(file),
    ...(head.description !== undefined ? { description: head.description } : {}),
    source,
    path,
    shadowed: false,
    valid: validation.valid,
    steps: head.steps,
    errors: validation.errors,
    text,
    ...(validation.recipe ? { recipe: validation.recipe } : {}),
    validation,
  };
}

async function loadAll(options: RecipeStoreOptions): Promise<RecipeFile[]> {
  const files: RecipeFile[] = [];
  for (const { source, dir } of recipeDirs(options.projectDir, options.homeDir)) {
    let names: string[];
    try {
      // The folders are chosen at run time; tell Turbopack not to trace the whole project for them.
      names = (await readdir(/*turbopackIgnore: true*/ dir)).filter(isRecipeFile).sort();
    } catch {
      continue; // A missing or unreadable folder simply holds no recipes.
    }
    for (const file of names) {
      const loaded = await loadFile(options, source, dir, file);
      if (loaded) files.push(loaded);
    }
  }
  // Lower is better; files arrive in folder then file-name order, so ties keep the first.
  const rank = (f: RecipeFile) =>
    (f.source === "project" ? 0 : 4) + (stem(basename(f.path)) === f.name ? 0 : 2) + (/\.yaml$/i.test(f.path) ? 0 : 1);
  const winners = new Map<string, RecipeFile>();
  for (const file of files) {
    const current = winners.get(file.name);
    if (!current || rank(file) < rank(current)) winners.set(file.name, file);
  }
  for (const file of files) {
    const winner = winners.get(file.name)!;
    if (winner !== file) Object.assign(file, { shadowed: true, shadowed_by: winner.path });
  }
  return files;
}

/**
 * Lists every recipe file of both folders (project first), shadowed ones included.
 * @example const entries = await listRecipes({ projectDir: process.cwd(), catalogue });
 */
export async function listRecipes(options: RecipeStoreOptions): Promise<RecipeEntry[]> {
  const files = await loadAll(options);
  return files.map(({ text: _text, recipe: _recipe, validation: _validation, ...entry }) => entry);
}

/**
 * Finds the recipe that a name resolves to (project-local wins), or undefined.
 * Throws RecipeStoreError INVALID_RECIPE_NAME for a name that is not ^[A-Za-z0-9-]+$.
 */
export async function findRecipe(options: RecipeStoreOptions, name: string): Promise<RecipeFile | undefined> {
  assertName(name);
  const [project] = recipeDirs(options.projectDir, options.homeDir);
  // Fast path: `<name>.yaml`, then `<name>.yml`, in the project folder rank above every other
  // file that could declare this name, so no scan is needed when one of them does.
  for (const file of [`${name}.yaml`, `${name}.yml`]) {
    const found = await loadFile(options, "project", project.dir, file);
    if (found?.name === name) return found;
  }
  return (await loadAll(options)).find((file) => file.name === name && !file.shadowed);
}

/**
 * Writes `<projectDir>/recipes/<name>.yaml`. The text must be YAML whose `name` field is `name`
 * (otherwise the file would be found under another name); it need not be otherwise valid, so
 * drafts can be saved. Returns the path written.
 */
export async function saveRecipe(projectDir: string, name: string, yamlText: string, prepare?: PrepareRecipe): Promise<{ path: string }> {
  assertName(name);
  // The service parses in a worker thread (`prepare`); a big text costs the event loop nothing.
  const parsed = prepare ? await prepare(yamlText, {}) : prepareRecipe(yamlText);
  if (parsed.broken) {
    const first = listItems(parsed.errors)[0];
    throw new RecipeStoreError("INVALID_RECIPE", `line ${first.line}, column ${first.column}: ${first.message}`);
  }
  const declared = parsed.head.name;
  if (declared !== name) {
    throw new RecipeStoreError("NAME_MISMATCH", `the recipe's name field is ${JSON.stringify(declared)}, not "${name}"`);
  }
  const dir = recipeDirs(projectDir)[0].dir;
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.yaml`);
  const temp = join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  await writeFile(temp, yamlText, "utf8");
  await rename(temp, path);
  return { path };
}

/**
 * Deletes `<projectDir>/recipes/<name>.yaml` only (never .yml files or user recipes).
 * Returns false when there was no such file.
 */
export async function deleteRecipe(projectDir: string, name: string): Promise<boolean> {
  assertName(name);
  try {
    await unlink(join(recipeDirs(projectDir)[0].dir, `${name}.yaml`));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
