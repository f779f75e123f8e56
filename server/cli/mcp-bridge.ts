/**
 * `kiln mcp` when a Kiln service already serves the project: stdio in, the service's /mcp out.
 * Opening the project in-process beside a running service would change the database behind the
 * service's in-memory working state, and the two would diverge; forwarding keeps one owner.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { newMcpServer, requestTracker, unknownToolResult } from "../api/mcp";
import type { ToolDefinition } from "../tools/define-tool";

/** How long a forwarded call may take: a day (the service has no limit of its own; a timer needs one). */
const FORWARD_TIMEOUT_MS = 24 * 3600 * 1000;

/**
 * Serves stdio MCP by forwarding to `url`/mcp until `ended` resolves, then answers the requests
 * still in progress and closes; only `tools` are exposed. It introduces itself and refuses hidden
 * tools as the service's /mcp and the in-process `kiln mcp` do. If the service cannot be reached,
 * a call fails as a JSON-RPC error (there is no tool result to give).
 */
export async function bridgeToService(url: string, tools: ToolDefinition[], token: string | undefined, ended: Promise<void>): Promise<void> {
  const client = new Client({ name: "kiln-mcp-bridge", version: "1.0.0" });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers } }));
  const exposed = new Set(tools.map((t) => t.name));
  const server = newMcpServer();
  const { track, drain } = requestTracker();
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    track(client.listTools(request.params).then((listed) => ({ ...listed, tools: listed.tools.filter((t) => exposed.has(t.name)) }))),
  );
  // No timeout of the SDK's own (60 s): a long recipe run answers when it ends, as over /mcp; a
  // client's cancellation is passed on.
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    exposed.has(request.params.name)
      ? track(client.callTool(request.params, undefined, { signal: extra.signal, timeout: FORWARD_TIMEOUT_MS }))
      : unknownToolResult(request.params.name),
  );
  await server.connect(new StdioServerTransport());
  await ended;
  await drain();
  await server.close();
  await client.close();
}
