/**
 * validateRecipe: every problem of a recipe text in one answer, each with path, line and column.
 * Order of checks: YAML (stops here: a broken document has no reliable structure) → recipe
 * schema → compile rules (variables, step references, conditions) → tools and their params.
 * A broken part never hides problems elsewhere: the variables and each step are also checked on
 * their own when the file as a whole does not match the schema.
 */
import type { z } from "zod";
import { compileRecipe, type CompileIssue, type CompiledStep, type StepSlot } from "./compile";
import { formatPath, parseRecipeYaml, type ParseLimits, type PathSegment, type YamlSource } from "./parse";
import {
  RECIPE_FIELDS,
  STEP_FIELDS,
  recipeSchema,
  recipeStepSchema,
  recipeVariablesSchema,
  stepIdFromName,
  type Recipe,
} from "./schema";
import { didYouMean } from "./suggest";
import type { RecipeIssue, RecipeToolCatalogue } from "./types";

/** Options of validateRecipe. */
export interface ValidateOptions {
  /** Run-time values (HTTP `variables`, CLI `--var`), validated as the run would use them. */
  variables?: Record<string, unknown>;
  /** Limits for the YAML text (size, depth, aliases). */
  limits?: Partial<ParseLimits>;
}

/** The answer of validate_recipe. */
export interface RecipeValidation {
  valid: boolean;
  errors: RecipeIssue[];
  warnings: RecipeIssue[];
  /** The parsed recipe whenever its structure is valid (even if other checks failed). */
  recipe?: Recipe;
}

/** Tools that would clash with the transaction a `transaction: true` recipe runs in. */
const TRANSACTION_TOOLS = new Set(["begin_transaction", "commit_transaction", "rollback_transaction"]);

type Issue = z.core.$ZodIssue;

/** How fromZod words its messages for one kind of mapping. */
interface ZodContext {
  /** Known keys at a path, for "did you mean" on unknown ones. */
  known?: (path: PathSegment[]) => string[];
  /** "field" in the recipe itself, "parameter" inside params. */
  noun: string;
  /** Extra words for an issue at a path (e.g. which placeholder produced the value). */
  explain?: (path: PathSegment[]) => string;
}

/** Zod issues → positioned issues; unknown keys get one issue each, at the key, with a hint. */
function fromZod(issues: readonly Issue[], base: PathSegment[], source: YamlSource, context: ZodContext) {
  const out: RecipeIssue[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as PathSegment[])];
    const last = String(path[path.length - 1]);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const hint = context.known ? didYouMean(key, context.known(path)) : "";
        out.push({ path: formatPath([...path, key]), ...source.locate([...path, key], { key: true }), message: `unknown ${context.noun} "${key}"${hint}` });
      }
    } else if (issue.code === "invalid_key") {
      // zod says "Invalid key in record"; the key's own issue says what is wrong with it.
      const message = `invalid name "${last}": ${issue.issues[0]?.message ?? issue.message}`;
      out.push({ path: formatPath(path), ...source.locate(path, { key: true }), message });
    } else {
      const missing = issue.code === "invalid_type" && / received undefined$/.test(issue.message);
      const message = missing ? `required ${context.noun} "${last}" is missing` : issue.message;
      out.push({ path: formatPath(path), ...source.locate(path), message: message + (context.explain?.(path) ?? "") });
    }
  }
  return out;
}

const fieldsAt = (path: PathSegment[]) => (path.length === 0 ? RECIPE_FIELDS : STEP_FIELDS);

/** Best-effort pieces of a file that does not match the schema as a whole. */
function salvage(value: unknown): { variables: Recipe["variables"]; steps: StepSlot[] } {
  const raw = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const variables: Recipe["variables"] = {};
  if (typeof raw.variables === "object" && raw.variables !== null) {
    for (const [name, v] of Object.entries(raw.variables)) {
      const one = recipeVariablesSchema.safeParse({ [name]: v });
      if (one.success) Object.assign(variables, one.data);
    }
  }
  const steps = (Array.isArray(raw.steps) ? raw.steps : []).map((step): StepSlot => {
    const parsed = recipeStepSchema.safeParse(step);
    if (parsed.success) return parsed.data;
    // Keep the id of a broken step so later references to it are not reported as well.
    const s = (typeof step === "object" && step !== null ? step : {}) as Record<string, unknown>;
    const id = typeof s.id === "string" ? s.id : typeof s.name === "string" ? stepIdFromName(s.name) : undefined;
    return { id, invalid: true };
  });
  return { variables, steps };
}

interface StepCheck {
  catalogue: RecipeToolCatalogue;
  source: YamlSource;
  recipe: Recipe | undefined;
  compiled: ReturnType<typeof compileRecipe>;
  errors: RecipeIssue[];
  warnings: RecipeIssue[];
}

/** The tool of one step exists, fits the recipe, and accepts the step's params. */
function checkStep({ index, step, params }: CompiledStep, { catalogue, source, recipe, compiled, errors, warnings }: StepCheck) {
  const toolPath = ["steps", index, "tool"];
  const at = (message: string): RecipeIssue => ({ path: formatPath(toolPath), ...source.locate(toolPath), message });
  const tool = catalogue.getTool(step.tool);
  if (!tool) {
    errors.push(at(`unknown tool "${step.tool}"${didYouMean(step.tool, catalogue.toolNames())}`));
    return;
  }
  if (recipe?.transaction && TRANSACTION_TOOLS.has(tool.name)) {
    errors.push(at(`${tool.name} cannot be a step of a recipe with transaction: true; the run already manages the transaction`));
  }
  if (tool.group === "recipes") {
    warnings.push(at(`${tool.name} runs recipe machinery from inside a recipe; a recipe that runs itself never ends`));
  }
  // Values from step results are unknown until run time, and template errors are already
  // reported: skip schema issues at or under those paths rather than invent false errors.
  const unknownAt = params.refs.filter((use) => use.ref.kind === "step").map((use) => use.path);
  const templateErrorAt = compiled.errors.filter((e) => e.path[1] === index && e.path[2] === "params").map((e) => e.path.slice(3));
  const skip = [...unknownAt, ...templateErrorAt];
  let result: ReturnType<z.ZodType["safeParse"]>;
  try {
    result = tool.input.safeParse(params.render(() => undefined));
  } catch (error) {
    // An async refinement or a throwing transform in a tool schema must not break validation.
    warnings.push(at(`the params of ${tool.name} could not be checked: ${(error as Error).message}`));
    return;
  }
  if (result.success) return;
  const relevant = result.error.issues.filter((issue) => !skip.some((p) => p.every((seg, i) => issue.path[i] === seg)));
  const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
  const known = (path: PathSegment[]) => (path.length === 3 && shape ? Object.keys(shape) : []);
  // A wrong type that came from an exact `{{ var }}` says so: the YAML alone does not show it.
  const explain = (path: PathSegment[]) => {
    const use = params.refs.find((u) => u.exact && u.ref.kind === "var" && formatPath(u.path) === formatPath(path.slice(3)));
    const name = use?.ref.kind === "var" ? use.ref.name : undefined;
    return name === undefined ? "" : ` (the value comes from {{ ${name} }}, which is ${JSON.stringify(compiled.plan.variables[name])})`;
  };
  errors.push(...fromZod(relevant, ["steps", index, "params"], source, { known, noun: "parameter", explain }));
}

/**
 * Validates recipe text against the schema and the tool catalogue, for the given run-time
 * variables. Never throws on bad input. Results for texts of 4 KiB and more are memoised (32 most
 * recent) and shared between callers: treat them as read-only.
 * @example
 * const { valid, errors } = validateRecipe(yamlText, catalogue, { variables: { n: 3 } });
 */
export function validateRecipe(text: string, catalogue: RecipeToolCatalogue, options: ValidateOptions = {}): RecipeValidation {
  // Big texts are parsed once: the builder, get_recipe_info and runs validate the same text again.
  if (typeof text !== "string" || text.length < MEMO_MIN_CHARS) return validateUncached(text, catalogue, options);
  const memo = memos.get(catalogue) ?? memos.set(catalogue, new Map()).get(catalogue)!;
  const key = `${JSON.stringify(options.variables ?? null)}\u0000${JSON.stringify(options.limits ?? null)}\u0000${text}`;
  const hit = memo.get(key);
  if (hit) {
    memo.delete(key);
    memo.set(key, hit);
    return hit;
  }
  const validation = validateUncached(text, catalogue, options);
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
  memo.set(key, validation);
  return validation;
}

/** Texts shorter than this validate in well under a millisecond; only longer ones are memoised. */
const MEMO_MIN_CHARS = 4096;
const MEMO_ENTRIES = 32;
/** Per catalogue (a validation depends on the tools' schemas): text + options → validation, LRU. */
const memos = new WeakMap<RecipeToolCatalogue, Map<string, RecipeValidation>>();

function validateUncached(text: string, catalogue: RecipeToolCatalogue, options: ValidateOptions): RecipeValidation {
  const source = parseRecipeYaml(text, options.limits);
  if (source.errors.length > 0) return { valid: false, errors: source.errors, warnings: source.warnings };

  const errors: RecipeIssue[] = [];
  const warnings: RecipeIssue[] = [...source.warnings];
  const parsed = recipeSchema.safeParse(source.value);
  if (!parsed.success) errors.push(...fromZod(parsed.error.issues, [], source, { known: fieldsAt, noun: "field" }));
  const recipe = parsed.success ? parsed.data : undefined;
  const pieces = recipe ?? salvage(source.value);

  const position = (issue: CompileIssue): RecipeIssue => ({
    path: formatPath(issue.path),
    ...source.locate(issue.path, { key: issue.key, offset: issue.offset }),
    message: issue.message,
  });
  const compiled = compileRecipe(pieces, options.variables);
  errors.push(...compiled.errors.map(position));
  warnings.push(...compiled.warnings.map(position));

  for (const step of compiled.plan.steps) {
    checkStep(step, { catalogue, source, recipe, compiled, errors, warnings });
  }

  const unique = (list: RecipeIssue[], seen = new Set<string>()) =>
    list
      .filter((issue) => {
        const key = `${issue.path}\u0000${issue.message}`;
        return seen.has(key) ? false : (seen.add(key), true);
      })
      .sort((a, b) => a.line - b.line || a.column - b.column);
  const allErrors = unique(errors);
  return { valid: allErrors.length === 0, errors: allErrors, warnings: unique(warnings), ...(recipe ? { recipe } : {}) };
}
