/**
 * Team mode's own HTTP endpoints, behind thin routes in app/api: better-auth's handler for the
 * few library endpoints the Studio uses (`/api/auth/*`: sign in, sign out, sign out everywhere,
 * the current session, change password), and the one-time links (`/api/links`: set up the first
 * owner, accept an invitation, choose a new password), which need no account and end signed in.
 */
import { z } from "zod";
import { fail, json, toErrorBody, zodFields } from "../api/envelope";
import { checkOrigin, readBody } from "../api/security";
import { getKiln, type Kiln } from "../runtime";
import { AUTH_BASE_PATH, AUTH_PATHS, OAUTH_PATHS } from "./auth";
import { protectedResourceMetadata } from "./oauth";
import { CLIENT_IP_HEADER, clientIp } from "./client-ip";
import { INTERNAL_CALLER, withCaller } from "./actor";

const AUTH_BODY_LIMIT = 16 * 1024;

const notTeamMode = () => fail(404, { code: "NOT_FOUND", message: "Kiln runs in personal mode: nobody signs in (KILN_AUTH=team turns team mode on)." });

async function teamKiln(req: Request): Promise<{ kiln: Kiln } | { refused: Response }> {
  let kiln: Kiln;
  try {
    kiln = await getKiln();
  } catch (e) {
    const { status, error } = toErrorBody(e);
    return { refused: fail(status, error) };
  }
  const refused = checkOrigin(req, kiln.config);
  if (refused) return { refused: fail(refused.status, refused.error) };
  if (!kiln.teams.enabled) return { refused: notTeamMode() };
  return { kiln };
}

/** The request as the library sees it: the client's address worked out by Kiln, the body read within a limit. */
async function forLibrary(req: Request, kiln: Kiln, body: string | null): Promise<Request> {
  const headers = new Headers(req.headers);
  headers.delete(CLIENT_IP_HEADER);
  const ip = clientIp(req.headers, kiln.teams.trustedProxy);
  if (ip) headers.set(CLIENT_IP_HEADER, ip);
  return new Request(req.url, { method: req.method, headers, ...(body !== null ? { body } : {}) });
}

/**
 * `/api/auth/*`: better-auth's handler, for the paths in AUTH_PATHS and OAUTH_PATHS only. The
 * OAuth endpoints answer as OAuth says (redirects, `{error, error_description}`), since OAuth
 * clients read those; the Studio's endpoints answer in Kiln's envelope.
 */
export async function handleAuthRequest(req: Request): Promise<Response> {
  const admitted = await teamKiln(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln } = admitted;
  const path = new URL(req.url).pathname.slice(AUTH_BASE_PATH.length);
  const oauth = OAUTH_PATHS.has(path);
  if (!AUTH_PATHS.has(path) && !oauth) return fail(404, { code: "NOT_FOUND", message: `There is no ${AUTH_BASE_PATH}${path}.` });
  let body: string | null = null;
  if (req.method !== "GET" && req.method !== "HEAD") {
    body = await readBody(req, AUTH_BODY_LIMIT);
    if (body === null) return fail(413, { code: "BODY_TOO_LARGE", message: `The request body is larger than ${AUTH_BODY_LIMIT} bytes.` });
  }
  if (path === "/oauth2/register" && body !== null) body = asNativeWhenLoopback(body);
  const auth = await kiln.teams.auth();
  // The library's own writes (sessions, the audit log of sign-ins) are Kiln's, not a tool call's.
  const answer = await withCaller(INTERNAL_CALLER, async () => auth.handler(await forLibrary(req, kiln, body)));
  return answer.ok || oauth ? answer : inEnvelope(answer);
}

/**
 * `/.well-known/oauth-protected-resource[/mcp]`: the metadata of /mcp (RFC 9728), where an MCP
 * client that got 401 learns which authorization server to use (server/teams/oauth.ts).
 */
export async function handleResourceMetadata(req: Request): Promise<Response> {
  const admitted = await teamKiln(req);
  if ("refused" in admitted) return admitted.refused;
  return json(200, protectedResourceMetadata(admitted.kiln.teams.publicUrl()), { "cache-control": "no-store" });
}

/**
 * `/.well-known/oauth-authorization-server[/api/auth]`: the authorization server's metadata (RFC
 * 8414). Its issuer has a path (/api/auth), so RFC 8414 puts the document at the root with the
 * path appended; clients also try the root alone. Both are the library's own document.
 */
export async function handleAuthServerMetadata(req: Request): Promise<Response> {
  const admitted = await teamKiln(req);
  if ("refused" in admitted) return admitted.refused;
  if (req.method !== "GET" && req.method !== "HEAD") return fail(405, { code: "METHOD_NOT_ALLOWED", message: "GET the metadata." }, { allow: "GET" });
  const auth = await admitted.kiln.teams.auth();
  const url = new URL(`${AUTH_BASE_PATH}/.well-known/oauth-authorization-server`, req.url);
  return withCaller(INTERNAL_CALLER, () => auth.handler(new Request(url, { headers: req.headers })));
}

const LOOPBACK_HTTP = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?\//;

/**
 * A client registration (RFC 7591) that names no application_type and redirects only to http
 * loopback addresses is a native app's (RFC 8252 §7.3): MCP clients such as Claude Code and the
 * MCP SDK register `http://localhost:<port>/callback` that way. The library defaults to "web",
 * which must use https, and would refuse them; anything else is passed on as sent.
 */
export function asNativeWhenLoopback(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return body;
  const client = parsed as { application_type?: unknown; redirect_uris?: unknown };
  const uris = client.redirect_uris;
  if (client.application_type !== undefined || !Array.isArray(uris) || uris.length === 0) return body;
  if (!uris.every((u) => typeof u === "string" && LOOPBACK_HTTP.test(u))) return body;
  return JSON.stringify({ ...client, application_type: "native" });
}

/** A library refusal in Kiln's error envelope (same status; cookies and Retry-After kept). */
async function inEnvelope(answer: Response): Promise<Response> {
  const body = (await answer.json().catch(() => ({}))) as { code?: unknown; message?: unknown };
  const retry = answer.headers.get("retry-after") ?? answer.headers.get("x-retry-after");
  const code = answer.status === 429 ? "TOO_MANY_REQUESTS" : typeof body.code === "string" && body.code ? body.code : answer.status === 401 ? "UNAUTHORIZED" : "AUTH_ERROR";
  const message = answer.status === 429
    ? `Too many attempts; try again in ${retry ?? "a few"} seconds.`
    : typeof body.message === "string" && body.message ? body.message : answer.statusText || "Refused.";
  const refused = fail(answer.status, { code, message, ...(retry ? { details: { retry_after: Number(retry) } } : {}) }, retry ? { "retry-after": retry } : {});
  for (const cookie of answer.headers.getSetCookie()) refused.headers.append("set-cookie", cookie);
  return refused;
}

const linkBody = z.strictObject({
  kind: z.enum(["setup", "invite", "reset"]),
  secret: z.string().max(100),
  name: z.string().trim().min(1).max(100).optional(),
  email: z.string().trim().max(254).optional(),
  password: z.string().max(1000),
});

/** `POST /api/links`: uses a one-time link, then signs the person in (the answer sets the session cookie). */
export async function handleLinkRequest(req: Request): Promise<Response> {
  const admitted = await teamKiln(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln } = admitted;
  if (req.method !== "POST") return fail(405, { code: "METHOD_NOT_ALLOWED", message: "POST a link's form as JSON." }, { allow: "POST" });
  const text = await readBody(req, AUTH_BODY_LIMIT);
  if (text === null) return fail(413, { code: "BODY_TOO_LARGE", message: `The request body is larger than ${AUTH_BODY_LIMIT} bytes.` });
  let input: z.infer<typeof linkBody>;
  try {
    const parsed = linkBody.safeParse(JSON.parse(text || "{}"));
    if (!parsed.success) {
      const fields = zodFields(parsed.error);
      return fail(400, { code: "INVALID_PARAMS", message: `Invalid parameter "${fields[0].path}": ${fields[0].message}`, details: { fields } });
    }
    input = parsed.data;
  } catch {
    return fail(400, { code: "INVALID_JSON", message: "Send the form as JSON." });
  }
  const ip = clientIp(req.headers, kiln.teams.trustedProxy);
  try {
    const user = await withCaller(INTERNAL_CALLER, async () => {
      if (input.kind === "reset") return kiln.teams.members.completeReset(input.secret, input.password);
      if (!input.name || !input.email)
        throw Object.assign(new Error("name and email"), { fields: [...(input.name ? [] : ["name"]), ...(input.email ? [] : ["email"])] });
      return kiln.teams.members.accept(input.kind, input.secret, { name: input.name, email: input.email, password: input.password });
    });
    // Signed in through the library, as the sign-in form would (its hooks write the audit log).
    const auth = await kiln.teams.auth();
    const headers = new Headers({ ...(ip ? { [CLIENT_IP_HEADER]: ip } : {}), "user-agent": req.headers.get("user-agent") ?? "" });
    const signedIn = await withCaller(INTERNAL_CALLER, () => auth.api.signInEmail({ body: { email: user.email, password: input.password }, headers, asResponse: true }));
    const answer = json(200, { ok: true, result: { user: { id: user.id, name: user.name, email: user.email, role: user.role } } });
    for (const cookie of signedIn.headers.getSetCookie()) answer.headers.append("set-cookie", cookie);
    return answer;
  } catch (e) {
    const fields = (e as { fields?: string[] }).fields;
    if (fields) return fail(400, { code: "INVALID_PARAMS", message: `Missing ${fields.join(" and ")}.`, details: { fields: fields.map((path) => ({ path, message: "required" })) } });
    const { status, error } = toErrorBody(e);
    return fail(status, error);
  }
}
