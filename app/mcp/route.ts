/** `/mcp`: the registry over MCP Streamable HTTP; checks, limits and 405s live in the handler. */
import { handleMcpRequest } from "@/server/api/mcp";

export const dynamic = "force-dynamic";

export { handleMcpRequest as GET, handleMcpRequest as POST, handleMcpRequest as DELETE, handleMcpRequest as PUT, handleMcpRequest as PATCH };
