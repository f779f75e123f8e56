/**
 * `/openapi.json`: an OpenAPI 3.1 description of `/tools` and every `/tools/<name>`, generated from
 * the catalogue (so from the same zod schemas that validate calls). OpenAPI 3.1 schemas are JSON
 * Schema 2020-12, which is what z.toJSONSchema writes, so tool schemas are used as they are; only
 * local `$defs` are lifted into components, since a `#/...` reference resolves against the document.
 */
import pkg from "../../package.json" with { type: "json" };
import { TOOL_GROUPS } from "../tools/define-tool";
import { catalogue, type CatalogueEntry } from "./catalogue";

type Json = Record<string, unknown>;

/** The error statuses of the HTTP contract, each a component response with the error envelope. */
export const ERROR_RESPONSES = {
  400: ["BadRequest", "Invalid JSON or parameters; `details.fields` lists every bad field."],
  401: ["Unauthorized", "KILN_TOKEN is set and the bearer token is missing or wrong."],
  403: ["Forbidden", "The Origin or Host header is refused (cross-site call or DNS rebinding)."],
  404: ["NotFound", "Unknown tool, or a named thing (scene, object, version...) does not exist."],
  405: ["MethodNotAllowed", "The tool does not answer this method; the `Allow` header lists those it does."],
  409: ["Conflict", "The call conflicts with the current state (a name already taken, a transaction open...)."],
  413: ["PayloadTooLarge", "The body is larger than KILN_BODY_LIMIT (1 MiB by default)."],
  415: ["UnsupportedMediaType", "A body that is not `application/json`."],
  503: ["ServiceUnavailable", "A connected application did not answer."],
} as const;

const ref = (kind: "schemas" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });
const SCALAR = new Set(["string", "number", "integer", "boolean"]);

/** Copies a tool schema without `$schema`, moving `$defs` to components under a tool prefix. */
function liftDefs(schema: Json, prefix: string, components: Json): Json {
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (!v || typeof v !== "object") return v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === "$schema") continue;
      if (k === "$defs") {
        for (const [name, def] of Object.entries(x as Json)) components[`${prefix}.${name}`] = rewrite(def);
        continue;
      }
      out[k] = k === "$ref" && typeof x === "string" && x.startsWith("#/$defs/") ? `#/components/schemas/${prefix}.${x.slice(8)}` : rewrite(x);
    }
    return out;
  };
  return rewrite(schema) as Json;
}

/** A query parameter can carry a scalar (or repeated scalars); objects need the JSON body. */
function isQueryable(schema: Json): boolean {
  const types = ([] as unknown[]).concat(schema.type ?? (schema.enum ? "string" : []));
  if (types.length && types.every((t) => SCALAR.has(t as string) || t === "null")) return true;
  if (schema.type === "array") return isQueryable((schema.items ?? {}) as Json);
  return false;
}

function errorRefs(withBody: boolean): Json {
  const codes = withBody ? [400, 401, 403, 404, 409, 413, 415, 503] : [400, 401, 403, 404, 409, 503];
  return Object.fromEntries(codes.map((c) => [String(c), ref("responses", ERROR_RESPONSES[c as keyof typeof ERROR_RESPONSES][0])]));
}

function toolOperations(tool: CatalogueEntry, schemas: Json): Json {
  const input = liftDefs(tool.input, tool.name, schemas);
  const output = liftDefs(tool.output, tool.name, schemas);
  schemas[`${tool.name}.params`] = input;
  schemas[`${tool.name}.result`] = output;
  const ok = {
    description: "Success: the tool's result in the envelope.",
    content: { "application/json": { schema: { type: "object", required: ["ok", "result"], properties: { ok: { const: true }, result: ref("schemas", `${tool.name}.result`) } } } },
  };
  const common = {
    tags: [tool.group], summary: tool.description,
    "x-kiln-annotations": { readOnly: tool.annotations.readOnly, destructive: tool.annotations.destructive, idempotent: tool.annotations.idempotent },
  };
  const body = (operationId: string, description: string) => ({
    ...common, operationId, description,
    requestBody: {
      required: ((input.required as unknown[] | undefined) ?? []).length > 0,
      description: "The parameters as a JSON object. An empty body is `{}`. Numbers may be numeric strings; unknown parameters are refused.",
      content: { "application/json": { schema: ref("schemas", `${tool.name}.params`) } },
    },
    responses: { 200: ok, ...errorRefs(true) },
  });
  const props = (input.properties ?? {}) as Record<string, Json>;
  const required = new Set((input.required ?? []) as string[]);
  const queryable = Object.entries(props).filter(([, s]) => isQueryable(s));
  const bodyOnly = Object.keys(props).filter((k) => !queryable.some(([q]) => q === k));
  const queryParameters = (requiredHere: boolean) => queryable.map(([name, schema]) => ({
    name, in: "query", required: requiredHere && required.has(name), schema,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
  }));
  const ops: Json = {};
  for (const method of tool.methods) {
    if (method === "POST") ops.post = body(tool.name, "Call the tool with a JSON body.");
    if (method === "DELETE") {
      // Either place may carry a parameter, so none is required in either.
      const del = body(`${tool.name}_via_delete`, "Same as POST; the parameters may also (or instead) be in the query string, each in one place.");
      ops.delete = { ...del, requestBody: { ...del.requestBody, required: false }, parameters: queryParameters(false) };
    }
    if (method === "GET") {
      ops.get = {
        ...common, operationId: `${tool.name}_via_get`,
        description: `Call the tool with its parameters in the query string (numbers and booleans are coerced).${bodyOnly.length ? ` Object parameters (${bodyOnly.join(", ")}) need POST.` : ""}`,
        parameters: queryParameters(true),
        responses: { 200: ok, ...errorRefs(false) },
      };
    }
  }
  return ops;
}

const errorEnvelope = {
  type: "object", required: ["ok", "error"], additionalProperties: false,
  properties: {
    ok: { const: false },
    error: {
      type: "object", required: ["code", "message"], additionalProperties: false,
      properties: {
        code: { type: "string", pattern: "^[A-Z][A-Z0-9_]*$", description: "Stable machine-readable code, e.g. INVALID_PARAMS." },
        message: { type: "string", description: "One human sentence." },
        details: { type: "object", description: "Optional; for INVALID_PARAMS `tool` and `fields: [{path, message, expected}]` (expected: what the parameter takes, from its schema)." },
      },
    },
  },
};

const catalogueEntry = {
  type: "object", required: ["name", "group", "description", "methods", "url", "annotations", "input", "output"],
  properties: {
    name: { type: "string" }, group: { type: "string", enum: [...TOOL_GROUPS] }, description: { type: "string" },
    methods: { type: "array", items: { type: "string", enum: ["GET", "POST", "DELETE"] } }, url: { type: "string" },
    annotations: { type: "object", properties: { readOnly: { type: "boolean" }, destructive: { type: "boolean" }, idempotent: { type: "boolean" } } },
    input: { type: "object", description: "JSON Schema of the parameters." }, output: { type: "object", description: "JSON Schema of the result." },
  },
};

let cached: Json | undefined;

/** The OpenAPI 3.1 document of the HTTP API (cached: the registry does not change at run time). */
export function openApiDocument(): Json {
  if (cached) return cached;
  const schemas: Json = { ErrorEnvelope: errorEnvelope, CatalogueEntry: catalogueEntry };
  const paths: Json = {
    "/tools": {
      get: {
        operationId: "list_tools", summary: "The tool catalogue: every tool with its group, methods, annotations and JSON Schemas.",
        responses: {
          200: { description: "The catalogue.", content: { "application/json": { schema: { type: "object", required: ["ok", "result"], properties: { ok: { const: true }, result: { type: "object", required: ["tools"], properties: { tools: { type: "array", items: ref("schemas", "CatalogueEntry") } } } } } } } },
          401: ref("responses", "Unauthorized"), 403: ref("responses", "Forbidden"),
        },
      },
    },
  };
  for (const tool of catalogue()) paths[`/tools/${tool.name}`] = toolOperations(tool, schemas);
  const responses = Object.fromEntries(Object.values(ERROR_RESPONSES).map(([name, description]) => [
    name, { description, content: { "application/json": { schema: ref("schemas", "ErrorEnvelope") } }, ...(name === "MethodNotAllowed" ? { headers: { Allow: { description: "The methods the tool answers.", schema: { type: "string" } } } } : {}) },
  ]));
  cached = {
    openapi: "3.1.0",
    info: {
      title: "Kiln", version: pkg.version,
      description: "Tools for Blender, Unity and Godot scenes over HTTP. Every answer is `{ok: true, result}` or `{ok: false, error: {code, message, details?}}`. Read tools answer GET (query string) and POST; the others POST (delete_version also DELETE). See docs/api.md.",
    },
    servers: [{ url: "/" }],
    tags: TOOL_GROUPS.map((name) => ({ name })),
    security: [{}, { bearerAuth: [] }],
    paths,
    components: {
      schemas, responses,
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "Required when the service runs with KILN_TOKEN; the token itself." } },
    },
  };
  return cached;
}
