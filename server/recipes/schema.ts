/**
 * The recipe file format as one zod schema: it validates parsed YAML, gives the `Recipe` type and
 * is converted to the JSON Schema that editors fetch (/schemas/recipe.json), so the three cannot
 * diverge. Cross-field rules (unique step ids, references to earlier steps) live in compile.ts,
 * because they need all steps at once and JSON Schema cannot express them anyway.
 */
import { z } from "zod";
import { MAX_RECIPE_STEPS } from "./limits";

/** Recipe names are file-system safe by construction: no dots, slashes or spaces. */
export const RECIPE_NAME_PATTERN = /^[A-Za-z0-9-]+$/;
/** Step ids are what conditions and placeholders use: `steps.<id>.result`. */
export const STEP_ID_PATTERN = /^[a-z0-9_]+$/;
/** Variable names double as CEL field names (`vars.<name>`), so they are identifiers. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Ids that are properties of every JavaScript object; never let them be keys of a lookup table. */
const RESERVED_IDS = new Set(["__proto__", "constructor", "prototype"]);
/** Those, plus the two roots a placeholder or condition starts from. */
const RESERVED_VARIABLES = new Set([...RESERVED_IDS, "vars", "steps"]);

/** True for a usable variable name: an identifier that is not reserved (see RESERVED_VARIABLES). */
export function isVariableName(name: string): boolean {
  return VARIABLE_NAME_PATTERN.test(name) && !RESERVED_VARIABLES.has(name);
}

/**
 * Wrong-type message: `required` for a missing field, `expected` otherwise (zod's default says
 * "received undefined"). Other issues (bad record keys, say) keep their own messages.
 */
function fieldError(field: string, expected: string) {
  return (issue: { code?: string; input?: unknown }) => {
    if (issue.code !== undefined && issue.code !== "invalid_type") return undefined;
    return issue.input === undefined ? `${field} is required` : `${field} must be ${expected}`;
  };
}

const variableValueSchema = z.union([z.string(), z.number(), z.boolean()], {
  error: "a variable's default must be a string, a number or a boolean",
});

const variablesSchema = z.record(
  z
    .string()
    .regex(VARIABLE_NAME_PATTERN, "a variable name is letters, digits and _, not starting with a digit")
    .refine((name) => !RESERVED_VARIABLES.has(name), "vars, steps, __proto__, constructor and prototype are reserved"),
  variableValueSchema,
  { error: fieldError("variables", "a mapping of name to default value") },
);

/**
 * Turns a step's display name into its default id: "Create new scene" → `create_new_scene`,
 * "addSunLight" → `add_sun_light`, accents dropped. May return "" (a name of only symbols).
 */
export function stepIdFromName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

const stepShape = {
  name: z.string({ error: fieldError("name", "text") }).min(1, "name must not be empty"),
  id: z
    .string({ error: fieldError("id", "text") })
    .regex(STEP_ID_PATTERN, "id must be lowercase letters, digits and _")
    .refine((id) => !RESERVED_IDS.has(id), "this id is reserved; choose another")
    .optional(),
  tool: z.string({ error: fieldError("tool", "a tool name") }).min(1, "tool must not be empty"),
  params: z
    .record(z.string(), z.unknown(), { error: fieldError("params", "a mapping of parameters") })
    .nullable()
    .optional(),
  condition: z.string({ error: fieldError("condition", "a CEL expression in a string") }).min(1).optional(),
  on_error: z.enum(["stop", "continue"], { error: "on_error must be stop or continue" }).default("stop"),
};

/** One step as written in YAML (input) and with `id`, `params` and `on_error` filled in (output). */
export const recipeStepSchema = z
  .strictObject(stepShape, { error: fieldError("a step", "a mapping with name and tool") })
  .superRefine((step, ctx) => {
    if (step.id !== undefined) return;
    const derived = stepIdFromName(step.name);
    if (derived === "" || RESERVED_IDS.has(derived)) {
      ctx.addIssue({
        code: "custom",
        path: ["name"],
        message: `the name "${step.name}" gives no usable step id; add an explicit id`,
      });
    }
  })
  .transform((step) => ({
    ...step,
    id: step.id ?? stepIdFromName(step.name),
    params: step.params ?? {},
  }));

/** The whole recipe file. */
export const recipeSchema = z.strictObject({
  name: z
    .string({ error: fieldError("name", "text") })
    .regex(RECIPE_NAME_PATTERN, "name must be letters, digits and hyphens only"),
  description: z.string({ error: fieldError("description", "text") }),
  version: z
    .string({ error: 'version must be a quoted string, e.g. version: "1.0"' })
    .optional(),
  author: z.string({ error: fieldError("author", "text") }).optional(),
  variables: variablesSchema.default({}),
  /** When true the run is wrapped in begin_transaction / commit or rollback (see run.ts). */
  transaction: z.boolean({ error: fieldError("transaction", "true or false") }).default(false),
  steps: z
    .array(recipeStepSchema, { error: fieldError("steps", "a list of steps") })
    .min(1, "a recipe needs at least one step")
    .max(MAX_RECIPE_STEPS, `a recipe has at most ${MAX_RECIPE_STEPS} steps`),
});

/** A validated recipe: ids, params and on_error are always present. */
export type Recipe = z.output<typeof recipeSchema>;
/** One step of a validated recipe. */
export type RecipeStep = Recipe["steps"][number];
/** A recipe as authored (optional fields may be missing). */
export type RecipeInput = z.input<typeof recipeSchema>;

/** The variables block alone, for checking it when the rest of the file is broken. */
export const recipeVariablesSchema = variablesSchema;

/** Known field names, for "did you mean" hints on unknown keys. */
export const RECIPE_FIELDS = Object.keys(recipeSchema.shape);
/** Known step field names. */
export const STEP_FIELDS = Object.keys(stepShape);

/**
 * The JSON Schema of a recipe file as authored, for editors (served at /schemas/recipe.json).
 * @example
 * response.json(recipeJsonSchema());
 */
export function recipeJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(recipeSchema, { io: "input", unrepresentable: "any" });
  return {
    ...schema,
    title: "Kiln recipe",
    description: "A named sequence of tool calls with variables, run by Kiln.",
  };
}
