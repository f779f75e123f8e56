/**
 * The Model Context Protocol surface of the registry: every tool (or the groups KILN_TOOLS names)
 * with its description, the JSON Schemas of the `GET /tools` catalogue and MCP annotations. Calls
 * go through the same tRPC procedures as `/tools/<name>`, so validation, errors and effects are
 * identical; an error is a tool result with `isError: true` whose text is the HTTP error envelope.
 *
 * It uses the SDK's low-level `Server` rather than `McpServer.registerTool`: registerTool wants
 * zod shapes it validates itself, with its own error messages, whereas here the registry's schema
 * is validated once, by the tool's procedure, and answers with Kiln's codes.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import { KilnError } from "../errors";
import type { Kiln } from "../runtime";
import { TOOL_GROUPS, type ToolDefinition } from "../tools/define-tool";
import { allTools } from "../tools";
import { catalogue } from "./catalogue";
import { fail, toErrorBody, type ErrorBody } from "./envelope";
import { admit } from "./admit";
import { withCaller, type Caller } from "../teams/actor";
import { callTool } from "./trpc";
import { withSource } from "../events/source";
import { MCP_SESSION_HEADER, clientInfoOf, openMcpSession, withMcpSession } from "./mcp-sessions";

const SERVER_INFO = { name: "kiln", title: "Kiln", version: pkg.version };
const INSTRUCTIONS =
  "Kiln edits the scenes of Blender, Unity and Godot (embedded scene engines) and keeps their history. " +
  "Editor tools take an optional `app` (default: the service's KILN_DEFAULT_APP). take_screenshot returns the PNG as an image. " +
  "Errors are tool results with isError and the JSON error envelope {ok: false, error: {code, message, details}}.";

/**
 * The tools KILN_TOOLS exposes: a comma-separated list of groups (`editor,version_control`) or
 * tool names; unset, empty or `all` means every tool. Throws on an entry that is neither, so a
 * typo does not silently hide tools.
 */
export function selectTools(spec: string | undefined, tools: ToolDefinition[] = allTools()): ToolDefinition[] {
  const entries = (spec ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0 || entries.includes("all")) return tools;
  const groups = new Set<string>(TOOL_GROUPS);
  const names = new Set(tools.map((t) => t.name));
  const unknown = entries.filter((e) => !groups.has(e) && !names.has(e));
  if (unknown.length)
    throw new KilnError("INVALID_CONFIG", `KILN_TOOLS names unknown groups or tools: ${unknown.join(", ")}. Groups: ${TOOL_GROUPS.join(", ")}.`, 500);
  const wanted = new Set(entries);
  return tools.filter((t) => wanted.has(t.group) || wanted.has(t.name));
}

const titleOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, " ");

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

const listCache = new Map<string, Tool[]>();

/** The MCP tool descriptions of these tools, from the catalogue (cached per selection). */
export function mcpToolList(tools: ToolDefinition[]): Tool[] {
  const key = tools.map((t) => t.name).join(",");
  let list = listCache.get(key);
  if (list) return list;
  const entries = new Map(catalogue().map((e) => [e.name, e]));
  list = tools.map((tool) => {
    const entry = entries.get(tool.name)!;
    const output = withoutDialect(entry.output);
    return {
      name: tool.name,
      title: titleOf(tool.name),
      description: tool.description,
      inputSchema: withoutDialect(entry.input) as Tool["inputSchema"],
      // MCP requires an object schema here, and clients check structuredContent against it.
      ...(output.type === "object" ? { outputSchema: output as Tool["outputSchema"] } : {}),
      annotations: {
        title: titleOf(tool.name),
        readOnlyHint: entry.annotations.readOnly,
        destructiveHint: entry.annotations.destructive,
        idempotentHint: entry.annotations.idempotent,
      },
    };
  });
  listCache.set(key, list);
  return list;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Tools whose result names a PNG the client should see, and where that PNG is on disk. */
const IMAGE_RESULTS: Record<string, (result: Record<string, unknown>, kiln: Kiln) => string | undefined> = {
  take_screenshot: (result, kiln) =>
    typeof result.id === "string" && UUID.test(result.id) ? path.join(kiln.screenshotsDir, `${result.id}.png`) : undefined,
};

/** An error as a tool result: the text is the same envelope `/tools/<name>` answers with. */
export function toolError(error: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ ok: false, error }) }] };
}

async function toolResult(kiln: Kiln, name: string, result: unknown): Promise<CallToolResult> {
  const structured = result !== null && typeof result === "object" && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(result) }];
  const imagePath = IMAGE_RESULTS[name]?.(structured, kiln);
  if (imagePath) content.push({ type: "image", mimeType: "image/png", data: (await readFile(imagePath)).toString("base64") });
  return { content, structuredContent: structured };
}

/** A server that introduces itself as Kiln (name, title, version, instructions), with no handlers yet. */
export function newMcpServer(): Server {
  return new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
}

/** The answer to a call of a tool this server does not expose: one KILN_TOOLS hides, or none of Kiln's. */
export function unknownToolResult(name: string): CallToolResult {
  const hidden = allTools().some((t) => t.name === name);
  return toolError({ code: "UNKNOWN_TOOL", message: hidden ? `The tool "${name}" is not exposed here (KILN_TOOLS).` : `There is no tool named "${name}". tools/list lists them.` });
}

/**
 * Keeps the server's requests in progress (`track` each handler's promise) so that a stdio server
 * whose stdin has closed can answer them all before it closes (`drain`).
 */
export function requestTracker(): { track: <T>(running: Promise<T>) => Promise<T>; drain: () => Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    track(running) {
      inFlight.add(running);
      return running.finally(() => inFlight.delete(running));
    },
    async drain() {
      // The SDK starts a handler a few microtasks after the request's line is read, and writes its
      // answer a few after the handler resolves: turn the loop around both, until nothing is left.
      do {
        await turn();
        await Promise.allSettled([...inFlight]);
      } while (inFlight.size > 0);
      await turn();
    },
  };
}

/**
 * An MCP server over these tools, its calls made as `caller` when given (the stdio command in
 * team mode). `drain()` resolves when the calls in progress have finished,
 * so the stdio command can close the database only after their effects are logged.
 */
export function createMcpServer(kiln: Kiln, tools: ToolDefinition[], caller?: Caller): { server: Server; drain: () => Promise<void> } {
  const server = newMcpServer();
  const exposed = new Set(tools.map((t) => t.name));
  const { track, drain } = requestTracker();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpToolList(tools) }));
  const call = async (name: string, args: unknown): Promise<CallToolResult> => {
    if (!exposed.has(name)) return unknownToolResult(name);
    try {
      const run = () => withSource("mcp", () => callTool({ kiln }, name, args ?? {}));
      // `caller`: stdio's one person (KILN_TOKEN's); over HTTP each request sets its own.
      return await toolResult(kiln, name, await (caller ? withCaller(caller, run) : run()));
    } catch (e) {
      return toolError(toErrorBody(e).error);
    }
  };
  server.setRequestHandler(CallToolRequestSchema, (request) => track(call(request.params.name, request.params.arguments)));
  return { server, drain };
}

/**
 * Closed servers kept for reuse, per Kiln and tool selection: building a `Server` costs about as
 * much as the rest of a call. Reuse is safe because a closed server holds no request state and
 * these handlers read nothing the client sent at initialization.
 */
const idleServers = new WeakMap<Kiln, Map<string, Server[]>>();
const MAX_IDLE = 16;

/**
 * Handles one request to `/mcp` (Streamable HTTP, stateless: a fresh transport per POST, plain
 * JSON answers, no session; GET and DELETE, which only serve sessions, get 405).
 * Host, Origin and token are checked first, as for `/tools`, and refusals use the same envelope
 * (proxy.ts answers Host and Origin first anyway); the transport enforces the body limit and
 * answers its own protocol errors (406, 415, 413, bad JSON-RPC) as JSON-RPC errors.
 */
export async function handleMcpRequest(req: Request): Promise<Response> {
  const admitted = await admit(req, "mcp");
  if ("refused" in admitted) return admitted.refused;
  const { kiln, caller } = admitted;
  let tools: ToolDefinition[];
  try {
    tools = selectTools(process.env.KILN_TOOLS);
  } catch (e) {
    const { status, error } = toErrorBody(e);
    return fail(status, error);
  }
  if (req.method !== "POST")
    return fail(405, { code: "METHOD_NOT_ALLOWED", message: `/mcp answers POST (stateless Streamable HTTP), not ${req.method}.` }, { allow: "POST" });
  const key = tools.map((t) => t.name).join(",");
  const pools = idleServers.get(kiln) ?? new Map<string, Server[]>();
  idleServers.set(kiln, pools);
  const idle = pools.get(key) ?? [];
  pools.set(key, idle);
  const server = idle.pop() ?? createMcpServer(kiln, tools).server;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: kiln.config.bodyLimit,
  });
  await server.connect(transport);
  try {
    // An `initialize` opens an MCP session that remembers the client's name (./mcp-sessions.ts).
    const opened = req.headers.has(MCP_SESSION_HEADER) ? undefined : await initializeOf(req);
    const session = opened ? openMcpSession(opened) : req.headers.get(MCP_SESSION_HEADER);
    // The tool calls this request makes run as its caller (the person of its token, in team mode).
    const answer = await withCaller(withMcpSession(caller, session), () => transport.handleRequest(req));
    if (!opened || !session) return answer;
    const headers = new Headers(answer.headers);
    headers.set(MCP_SESSION_HEADER, session);
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
  } finally {
    // JSON mode resolves only once every answer is in the body, so closing now loses nothing.
    await server.close();
    if (idle.length < MAX_IDLE) idle.push(server);
  }
}

/** Largest body read ahead for an `initialize` (one is a few hundred bytes); bigger ones are left to the transport. */
const INITIALIZE_PEEK = 64 * 1024;

/** The clientInfo of an `initialize` request, read from a copy of its body (the transport reads the original). */
async function initializeOf(req: Request): Promise<{ name: string; version?: string } | undefined> {
  const length = Number(req.headers.get("content-length") ?? NaN);
  if (!(length > 0 && length <= INITIALIZE_PEEK)) return undefined;
  try {
    return clientInfoOf(JSON.parse(await req.clone().text()));
  } catch {
    return undefined; // the transport answers the bad JSON itself
  }
}
