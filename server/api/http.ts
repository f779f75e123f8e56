/**
 * `/tools/<name>`: the HTTP surface of the registry. Checks, parses and routes a request to the
 * tool's tRPC procedure, and answers in the envelope. Bad input never reaches a handler.
 */
import { toolMethods } from "../tools/define-tool";
import { findTool } from "../tools";
import { fail, ok, toErrorBody } from "./envelope";
import { readBody } from "./security";
import { admit } from "./admit";
import { callTool } from "./trpc";
import { withCaller } from "../teams/actor";

/** Query parameters as an object; a repeated key becomes an array. */
function queryParams(url: URL): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return { ...out };
}

function isJsonType(contentType: string | null): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}

/**
 * Parses the request's parameters or returns the error response. GET carries them in the query
 * string, POST in a JSON body; DELETE in either or both (clients differ on whether DELETE may
 * have a body), and a parameter given in both is refused rather than silently picked.
 */
async function readParams(req: Request, limit: number): Promise<{ params: unknown } | { response: Response }> {
  if (req.method === "GET") return { params: queryParams(new URL(req.url)) };
  const body = await readJsonBody(req, limit);
  if (req.method !== "DELETE" || "response" in body) return body;
  const query = queryParams(new URL(req.url));
  const twice = Object.keys(query).filter((k) => Object.hasOwn(body.params as object, k));
  if (twice.length > 0)
    return {
      response: fail(400, {
        code: "INVALID_PARAMS", message: `Parameter "${twice[0]}" is given both in the query string and in the body; give it once.`,
        details: { fields: twice.map((path) => ({ path, message: "given both in the query string and in the body" })) },
      }),
    };
  return { params: { ...query, ...(body.params as object) } };
}

async function readJsonBody(req: Request, limit: number): Promise<{ params: unknown } | { response: Response }> {
  const text = await readBody(req, limit);
  if (text === null)
    return { response: fail(413, { code: "BODY_TOO_LARGE", message: `The request body is larger than ${limit} bytes.`, details: { limit } }) };
  if (text.trim() === "") return { params: {} };
  if (!isJsonType(req.headers.get("content-type")))
    return { response: fail(415, { code: "UNSUPPORTED_MEDIA_TYPE", message: "Send parameters as JSON with 'Content-Type: application/json'." }) };
  try {
    const params = JSON.parse(text);
    if (params === null || typeof params !== "object" || Array.isArray(params))
      return {
        response: fail(400, {
          code: "INVALID_PARAMS", message: "The JSON body must be an object of parameters.",
          details: { fields: [{ path: "", message: `The parameters must be a JSON object, not ${params === null ? "null" : Array.isArray(params) ? "a list" : typeof params}.`, expected: "object of name: value" }] },
        }),
      };
    return { params };
  } catch (e) {
    return { response: fail(400, { code: "INVALID_JSON", message: `The body is not valid JSON: ${(e as Error).message}` }) };
  }
}

/** Handles one request to `/tools/<name>`. */
export async function handleToolRequest(req: Request, name: string): Promise<Response> {
  const admitted = await admit(req, "http");
  if ("refused" in admitted) return admitted.refused;
  const { kiln, caller } = admitted;
  const tool = findTool(name);
  if (!tool)
    return fail(404, { code: "UNKNOWN_TOOL", message: `There is no tool named "${name}". GET /tools lists them.` });
  const methods = toolMethods(tool);
  if (!methods.includes(req.method))
    return fail(405, { code: "METHOD_NOT_ALLOWED", message: `${tool.name} answers ${methods.join(" and ")}, not ${req.method}.` }, { allow: methods.join(", ") });
  const parsed = await readParams(req, kiln.config.bodyLimit);
  if ("response" in parsed) return parsed.response;
  try {
    return ok(await withCaller(caller, () => callTool({ kiln }, tool.name, parsed.params)));
  } catch (e) {
    const { status, error, headers } = toErrorBody(e);
    return fail(status, error, headers);
  }
}
