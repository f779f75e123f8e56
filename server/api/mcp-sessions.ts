/**
 * MCP client sessions for the stateless `/mcp` (server/api/mcp.ts): the client's own name and
 * version from `initialize` ("Claude Desktop 0.9.2"), kept under a session id that Kiln hands back
 * in `Mcp-Session-Id`. MCP clients send that header on every later request (the specification's
 * session management; the SDK's client does), so each call's actor carries the client's name, and
 * its session is the MCP session: per-session undo, history's "Ada via Claude Desktop", presence.
 *
 * The transport itself stays stateless (any Kiln process answers any request; nothing is held
 * per session but this name). A session id Kiln does not know (after a restart) is still the
 * call's session, only without a client name. At most MAX_SESSIONS are kept, the least recently
 * used dropped first, so a client opening sessions in a loop cannot grow memory.
 *
 * API: `MCP_SESSION_HEADER`; `clientInfoOf(body)` finds an `initialize` request's clientInfo;
 * `openMcpSession(clientInfo)` returns a new id; `withMcpSession(caller, id)` is the caller of a
 * request naming that session; `mcpClientName(id)` reads it.
 */
import { randomUUID } from "node:crypto";
import type { Caller } from "../teams/actor";

/** The header of the MCP specification's session management (Streamable HTTP). */
export const MCP_SESSION_HEADER = "mcp-session-id";

const MAX_SESSIONS = 10_000;
const NAME = /^[\p{L}\p{N} ._()+/@:-]{1,100}$/u;

// On globalThis, like the caller store: each route bundle must see the same sessions.
const KEY = Symbol.for("kiln.mcp-sessions");
const sessions: Map<string, string> = ((globalThis as { [KEY]?: Map<string, string> })[KEY] ??= new Map());

/** The client's name and version from a JSON-RPC `initialize` request (or a batch holding one). */
export function clientInfoOf(body: unknown): { name: string; version?: string } | undefined {
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) {
    const info = (m as { method?: unknown; params?: { clientInfo?: { name?: unknown; title?: unknown; version?: unknown } } })?.method === "initialize"
      ? (m as { params?: { clientInfo?: { name?: unknown; title?: unknown; version?: unknown } } }).params?.clientInfo
      : undefined;
    if (!info) continue;
    // `title` is the display name (newer clients); `name` the programmatic one.
    const name = typeof info.title === "string" && info.title ? info.title : info.name;
    if (typeof name !== "string") continue;
    return { name, ...(typeof info.version === "string" ? { version: info.version } : {}) };
  }
  return undefined;
}

/** Starts a session for a client that said who it is; returns the id to send in `Mcp-Session-Id`. */
export function openMcpSession(info: { name: string; version?: string }): string {
  const id = `mcp-${randomUUID()}`;
  // A client's name goes into history and the Studio: keep it short and printable.
  const label = `${info.name} ${info.version ?? ""}`.trim().slice(0, 100);
  sessions.set(id, NAME.test(label) ? label : label.replace(/[^\p{L}\p{N} ._()+/@:-]/gu, "?"));
  if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  return id;
}

/** The client name of a known session. */
export function mcpClientName(id: string): string | undefined {
  const name = sessions.get(id);
  if (name !== undefined) {
    sessions.delete(id); // most recently used last
    sessions.set(id, name);
  }
  return name;
}

const SESSION_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/** The caller of a request in MCP session `id` (a malformed id is ignored): its client name and session. */
export function withMcpSession(caller: Caller, id: string | null): Caller {
  if (!id || !SESSION_ID.test(id)) return caller;
  const clientName = mcpClientName(id);
  return { ...caller, actor: { ...caller.actor, session: id, ...(clientName ? { clientName } : {}) } };
}
