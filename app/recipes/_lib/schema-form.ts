/**
 * Tool JSON Schema (from the catalogue, i.e. the tool's own zod input) → the fields of the param
 * form. Kiln's hints decide composite editors: `kiln: "vector"` (or properties x, y, z) is a
 * vector, `kiln: "color"` (or r, g, b[, a]) a colour; enums become selects. Anything the form has
 * no editor for (arrays, unions, free-form objects) is edited as YAML text, never dropped.
 */
type Schema = Record<string, unknown>;

/** The kinds of editor the form has. */
export type FieldKind = "string" | "number" | "boolean" | "enum" | "vector" | "color" | "object" | "yaml";

/** One field of the form. */
export interface FieldSpec {
  key: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  /** enum: the allowed values. */
  options?: string[];
  integer?: boolean;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  /** vector/color: the component keys in order; object: the nested fields. */
  components?: string[];
  fields?: FieldSpec[];
}

/** "spot_angle" → "Spot angle". */
export function humanize(key: string): string {
  const words = key.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const propsOf = (schema: Schema) => (typeof schema.properties === "object" && schema.properties ? (schema.properties as Record<string, Schema>) : {});
const hasExactly = (keys: string[], allowed: string[], needed: string[]) =>
  keys.every((k) => allowed.includes(k)) && needed.every((k) => keys.includes(k));

function kindOf(schema: Schema): FieldKind {
  const props = Object.keys(propsOf(schema));
  if (schema.kiln === "vector" || (schema.type === "object" && props.length > 0 && hasExactly(props, ["x", "y", "z"], ["x", "y"]))) return "vector";
  if (schema.kiln === "color" || (schema.type === "object" && hasExactly(props, ["r", "g", "b", "a"], ["r", "g", "b"]))) return "color";
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) return "enum";
  if (schema.type === "number" || schema.type === "integer") return "number";
  if (schema.type === "boolean") return "boolean";
  if (schema.type === "string") return "string";
  if (schema.type === "object" && props.length > 0) return "object";
  return "yaml";
}

/** The form fields of an object schema, in the schema's property order. */
export function fieldsOf(schema: Schema | undefined): FieldSpec[] {
  if (!schema) return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(propsOf(schema)).map(([key, prop]) => {
    const kind = kindOf(prop);
    const spec: FieldSpec = { key, label: humanize(key), kind, required: required.has(key) };
    if (typeof prop.description === "string") spec.description = prop.description;
    if (prop.default !== undefined) spec.default = prop.default;
    if (kind === "enum") spec.options = prop.enum as string[];
    if (kind === "number") {
      spec.integer = prop.type === "integer";
      if (typeof prop.minimum === "number") spec.minimum = prop.minimum;
      if (typeof prop.maximum === "number" && prop.maximum < 1e15) spec.maximum = prop.maximum;
    }
    if (kind === "vector") spec.components = ["x", "y", "z"].filter((k) => k in propsOf(prop) || prop.kiln === "vector");
    if (kind === "color") spec.components = ["r", "g", "b", "a"];
    if (kind === "object") spec.fields = fieldsOf(prop);
    return spec;
  });
}

/** The property names of a schema in order: where setParam inserts new keys. */
export function keyOrder(schema: Schema | undefined): string[] {
  return schema ? Object.keys(propsOf(schema)) : [];
}

/** The schema of a nested property (for key orders of nested mappings). */
export function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  return schema ? propsOf(schema)[key] : undefined;
}
