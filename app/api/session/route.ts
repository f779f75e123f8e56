/**
 * `POST /api/session`: a browser presents KILN_TOKEN once (the /login form, or JSON `{token}`)
 * and gets an HttpOnly, SameSite=Strict session cookie that pages and API routes accept instead of
 * the bearer header. A form post is answered with a redirect (to `next`, or back to /login).
 */
import { fail, json } from "@/server/api/envelope";
import { checkOrigin, hasToken, readBody, sessionCookie } from "@/server/api/security";
import { getKiln } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** Only a path on this site: never `//host` or `/\host`, which browsers treat as another site. */
const safeNext = (next: unknown) => (typeof next === "string" && /^\/(?![/\\])/.test(next) ? next : "/");

export async function POST(req: Request) {
  const kiln = await getKiln();
  const refused = checkOrigin(req, kiln.config);
  if (refused) return fail(refused.status, refused.error);
  // Team mode: people sign in at /sign-in; KILN_TOKEN is not the service's credential there.
  if (kiln.teams.enabled) return fail(404, { code: "NOT_FOUND", message: "Kiln runs in team mode: sign in at /sign-in (docs/teams.md)." });
  const text = await readBody(req, 16 * 1024);
  if (text === null) return fail(413, { code: "BODY_TOO_LARGE", message: "The request body is larger than 16384 bytes." });
  const isForm = (req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded");
  let fields: { token?: unknown; next?: unknown } = {};
  if (isForm) fields = Object.fromEntries(new URLSearchParams(text));
  else {
    try {
      fields = JSON.parse(text || "{}");
    } catch {
      return fail(400, { code: "INVALID_JSON", message: "Send {\"token\": \"...\"} as JSON, or the /login form." });
    }
  }
  const token = kiln.config.token;
  const given = typeof fields?.token === "string" ? fields.token.trim() : "";
  const accepted = !!token && hasToken(new Headers({ authorization: `Bearer ${given}` }), token);
  const next = safeNext(fields?.next);
  if (!token) return isForm ? redirect(next) : json(200, { ok: true, result: { session: false, reason: "KILN_TOKEN is not set" } });
  if (!accepted) {
    if (isForm) return redirect(`/login?error=1&next=${encodeURIComponent(next)}`);
    return fail(401, { code: "UNAUTHORIZED", message: "That is not this Kiln's access token." });
  }
  const cookie = { "set-cookie": sessionCookie(token) };
  return isForm ? redirect(next, cookie) : json(200, { ok: true, result: { session: true } }, cookie);
}

function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...headers } });
}
