/**
 * validateRecipe: every problem of a recipe text in one answer, each with path, line and column.
 * Order of checks: YAML (stops here: a broken document has no reliable structure) → recipe
 * schema → compile rules (variables, step references, conditions) → tools and their params.
 * A broken part never hides problems elsewhere: the variables and each step are also checked on
 * their own when the file as a whole does not match the schema.
 */
import type { z } from "zod";
import { compileRecipe, type CompileIssue, type StepSlot } from "./compile";
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

/** Zod issues → positioned issues; unknown keys get one issue each, at the key, with a hint. */
function fromZod(issues: readonly Issue[], base: PathSegment[], source: YamlSource, known?: (path: PathSegment[]) => string[]) {
  const out: RecipeIssue[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as PathSegment[])];
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const hint = known ? didYouMean(key, known(path)) : "";
        out.push({ path: formatPath([...path, key]), ...source.locate([...path, key], { key: true }), message: `unknown field "${key}"${hint}` });
      }
    } else {
      out.push({ path: formatPath(path), ...source.locate(path, { key: issue.code === "invalid_key" }), message: issue.message });
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

/**
 * Validates recipe text against the schema and the tool catalogue, for the given run-time
 * variables. Never throws on bad input.
 * @example
 * const { valid, errors } = validateRecipe(yamlText, catalogue, { variables: { n: 3 } });
 */
export function validateRecipe(text: string, catalogue: RecipeToolCatalogue, options: ValidateOptions = {}): RecipeValidation {
  const source = parseRecipeYaml(text, options.limits);
  if (source.errors.length > 0) return { valid: false, errors: source.errors, warnings: source.warnings };

  const errors: RecipeIssue[] = [];
  const warnings: RecipeIssue[] = [...source.warnings];
  const parsed = recipeSchema.safeParse(source.value);
  if (!parsed.success) errors.push(...fromZod(parsed.error.issues, [], source, fieldsAt));
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

  for (const { index, step, params } of compiled.plan.steps) {
    const at = (path: PathSegment[], message: string, key = false) =>
      ({ path: formatPath(path), ...source.locate(path, { key }), message }) satisfies RecipeIssue;
    const tool = catalogue.getTool(step.tool);
    if (!tool) {
      errors.push(at(["steps", index, "tool"], `unknown tool "${step.tool}"${didYouMean(step.tool, catalogue.toolNames())}`));
      continue;
    }
    if (recipe?.transaction && TRANSACTION_TOOLS.has(tool.name)) {
      errors.push(at(["steps", index, "tool"], `${tool.name} cannot be a step of a recipe with transaction: true; the run already manages the transaction`));
    }
    if (tool.group === "recipes") {
      warnings.push(at(["steps", index, "tool"], `${tool.name} runs recipe machinery from inside a recipe; a recipe that runs itself never ends`));
    }
    // Values from step results are unknown until run time, and template errors are already
    // reported: skip schema issues at or under those paths rather than invent false errors.
    const unknownAt = params.refs.filter((use) => use.ref.kind === "step").map((use) => use.path);
    const templateErrorAt = compiled.errors.filter((e) => e.path[1] === index && e.path[2] === "params").map((e) => e.path.slice(3));
    const skip = [...unknownAt, ...templateErrorAt];
    const sample = params.render(() => undefined);
    const result = tool.input.safeParse(sample);
    if (result.success) continue;
    const relevant = result.error.issues.filter((issue) => !skip.some((p) => p.every((seg, i) => issue.path[i] === seg)));
    const shape = (tool.input as { shape?: Record<string, unknown> }).shape;
    const known = (path: PathSegment[]) => (path.length === 3 && shape ? Object.keys(shape) : []);
    errors.push(...fromZod(relevant, ["steps", index, "params"], source, known));
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
