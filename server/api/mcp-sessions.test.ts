/** MCP sessions keep an initialize's client name, and name the session and client of later calls. */
import { describe, expect, it } from "vitest";
import { personalActor } from "../teams/actor";
import { clientInfoOf, mcpClientName, openMcpSession, withMcpSession } from "./mcp-sessions";

const init = (clientInfo: unknown) => ({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo } });

describe("MCP sessions", () => {
  it("reads the client's title (else name) and version from initialize, alone or in a batch", () => {
    expect(clientInfoOf(init({ name: "claude-ai", title: "Claude Desktop", version: "0.9.2" }))).toEqual({ name: "Claude Desktop", version: "0.9.2" });
    expect(clientInfoOf([{ jsonrpc: "2.0", method: "notifications/initialized" }, init({ name: "cursor" })])).toEqual({ name: "cursor" });
    expect(clientInfoOf({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { clientInfo: { name: "x" } } })).toBeUndefined();
    expect(clientInfoOf(init({ name: 42 }))).toBeUndefined();
  });

  it("gives the caller of a request in a session its client name and the session id", () => {
    const id = openMcpSession({ name: "Claude Desktop", version: "0.9.2" });
    const caller = withMcpSession({ source: "mcp", actor: personalActor("mcp", "mcp") }, id);
    expect(caller.actor).toMatchObject({ client: "mcp", clientName: "Claude Desktop 0.9.2", session: id });
    // An id Kiln does not know (after a restart) is still the session; a malformed one is ignored.
    expect(withMcpSession({ source: "mcp", actor: personalActor("mcp", "mcp") }, "mcp-gone").actor).not.toHaveProperty("clientName");
    expect(withMcpSession({ source: "mcp", actor: personalActor("mcp", "mcp") }, "bad id\n").actor.session).toBe("mcp");
  });

  it("keeps client names printable and short", () => {
    const id = openMcpSession({ name: "evil\u0007\u001b[31m" + "x".repeat(300) });
    const name = mcpClientName(id)!;
    expect(name.length).toBeLessThanOrEqual(100);
    expect(name).not.toMatch(/[\u0000-\u001f]/);
  });
});
