/**
 * The first step of every HTTP surface (/tools, /api/trpc, /mcp, /events, the file routes): the
 * running Kiln and who is calling, or the answer that refuses the request (Kiln failed to start;
 * Host or Origin refused; no valid credential).
 *
 * Personal mode: the operating-system user, behind KILN_TOKEN when it is set (as always).
 * Team mode (docs/teams.md): a personal access token or the browser's session cookie names the
 * person (server/teams/credentials.ts), and on /mcp so does an OAuth access token issued for it;
 * without one, 401 with `WWW-Authenticate` (on /mcp naming its OAuth metadata). A change made
 * with the session cookie must also send JSON, which a cross-site form cannot (with SameSite
 * cookies and the Origin check, Kiln's defence against cross-site request forgery).
 */
import { getKiln, type Kiln } from "../runtime";
import type { Caller, ClientKind } from "../teams/actor";
import { fail, toErrorBody } from "./envelope";
import { callerOf } from "./caller";
import { checkOrigin, checkRequest } from "./security";
import { mcpChallenge } from "../teams/oauth";

export interface Admitted {
  kiln: Kiln;
  caller: Caller;
  /** The browser session (better-auth's id) a cookie-authenticated request came with. */
  sessionId?: string;
}

/** The challenge a 401 carries: a bearer token is what a program can send. */
export const WWW_AUTHENTICATE = 'Bearer realm="kiln"';

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function isJson(contentType: string | null): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}

/** Checks a request on surface `client` ("http" for /tools, "browser" for the Studio's tRPC, "mcp"). */
export async function admit(req: Request, client: ClientKind = "http"): Promise<Admitted | { refused: Response }> {
  let kiln: Kiln;
  try {
    kiln = await getKiln();
  } catch (e) {
    const { status, error } = toErrorBody(e);
    return { refused: fail(status, error) };
  }
  if (!kiln.teams.enabled) {
    const refusal = checkRequest(req, kiln.config);
    return refusal ? { refused: fail(refusal.status, refusal.error) } : { kiln, caller: callerOf(req, client) };
  }
  const origin = checkOrigin(req, kiln.config);
  if (origin) return { refused: fail(origin.status, origin.error) };
  const resolved = await kiln.teams.credentials.resolve(req.headers, client);
  if ("refusal" in resolved) {
    const { status, code, message } = resolved.refusal;
    // /mcp names its protected-resource metadata, where MCP clients start signing in (RFC 9728).
    const challenge = client === "mcp" ? mcpChallenge(kiln.teams.publicUrl()) : WWW_AUTHENTICATE;
    return { refused: fail(status, { code, message }, { "www-authenticate": challenge }) };
  }
  if (resolved.sessionId && !SAFE_METHODS.has(req.method) && !isJson(req.headers.get("content-type")))
    return {
      refused: fail(415, { code: "UNSUPPORTED_MEDIA_TYPE", message: "A change made with the session cookie must send JSON ('Content-Type: application/json')." }),
    };
  return { kiln, caller: resolved.caller, sessionId: resolved.sessionId };
}
