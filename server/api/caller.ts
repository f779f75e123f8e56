/**
 * Who an HTTP request comes from (server/teams/actor.ts). Personal mode: the operating-system
 * user, through the client the request names; the session is the `X-Kiln-Session` header (the
 * Studio sends one per tab, the CLI one per run), else one shared session per client kind.
 */
import { personalActor, type Caller, type ClientKind } from "../teams/actor";
import type { EventSource } from "../events/types";
import { CLIENT_HEADER } from "../events/source";

/** The header naming the client session (a Studio tab, a CLI run): per-session undo and presence. */
export const SESSION_HEADER = "x-kiln-session";

/** What a session name may be (also `?session=` on /events). */
export const SESSION_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

/** The session a request names, when it names a well-formed one. */
export function sessionOf(headers: Headers): string | undefined {
  const s = headers.get(SESSION_HEADER);
  return s && SESSION_PATTERN.test(s) ? s : undefined;
}

/** The caller of a request on an HTTP surface; `client` says which surface (the Studio's tRPC is `browser`). */
export function callerOf(req: Request, client: ClientKind): Caller {
  const kind: ClientKind = client === "http" && req.headers.get(CLIENT_HEADER) === "cli" ? "cli" : client;
  const source: EventSource = kind === "cli" ? "cli" : kind === "mcp" ? "mcp" : "http";
  return { source, actor: personalActor(kind, sessionOf(req.headers) ?? kind) };
}
