/**
 * `kiln mcp` when a Kiln service already serves the project: stdio in, the service's /mcp out.
 * Opening the project in-process beside a running service would change the database behind the
 * service's in-memory working state, and the two would diverge; forwarding keeps one owner.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition } from "../tools/define-tool";

/** Serves stdio MCP by forwarding to `url`/mcp until `ended` resolves; only `tools` are exposed. */
export async function bridgeToService(url: string, tools: ToolDefinition[], token: string | undefined, ended: Promise<void>): Promise<void> {
  const client = new Client({ name: "kiln-mcp-bridge", version: "1.0.0" });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", url), { requestInit: { headers } }));
  const exposed = new Set(tools.map((t) => t.name));
  const server = new Server({ name: "kiln", version: "1.0.0" }, { capabilities: { tools: { listChanged: false } } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const listed = await client.listTools(request.params);
    return { ...listed, tools: listed.tools.filter((t) => exposed.has(t.name)) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (!exposed.has(request.params.name)) {
      const error = { code: "UNKNOWN_TOOL", message: `There is no tool named "${request.params.name}".` };
      return { isError: true, content: [{ type: "text", text: JSON.stringify({ ok: false, error }) }] };
    }
    return client.callTool(request.params);
  });
  await server.connect(new StdioServerTransport());
  await ended;
  await server.close();
  await client.close();
}
