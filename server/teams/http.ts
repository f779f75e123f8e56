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
import { AUTH_BASE_PATH, AUTH_PATHS } from "./auth";
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

/** `/api/auth/*`: better-auth's handler, for the paths in AUTH_PATHS only. */
export async function handleAuthRequest(req: Request): Promise<Response> {
  const admitted = await teamKiln(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln } = admitted;
  const path = new URL(req.url).pathname.slice(AUTH_BASE_PATH.length);
  if (!AUTH_PATHS.has(path)) return fail(404, { code: "NOT_FOUND", message: `There is no ${AUTH_BASE_PATH}${path}.` });
  let body: string | null = null;
  if (req.method !== "GET" && req.method !== "HEAD") {
    body = await readBody(req, AUTH_BODY_LIMIT);
    if (body === null) return fail(413, { code: "BODY_TOO_LARGE", message: `The request body is larger than ${AUTH_BODY_LIMIT} bytes.` });
  }
  const auth = await kiln.teams.auth();
  // The library's own writes (sessions, the audit log of sign-ins) are Kiln's, not a tool call's.
  const answer = await withCaller(INTERNAL_CALLER, async () => auth.handler(await forLibrary(req, kiln, body)));
  return answer.ok ? answer : inEnvelope(answer);
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
