/**
 * First line of defence for every request, pages included: a Host that is not a loopback name
 * or configured (DNS rebinding) or a foreign Origin gets 403 before any route runs. With
 * KILN_TOKEN set, a page also needs the token (bearer header or the session cookie that /login
 * sets); without it a browser is sent to /login. In team mode (KILN_AUTH=team, docs/teams.md) a
 * page needs a signed-in person (or a personal access token) instead; without one a browser is
 * sent to /sign-in. API routes check Host, Origin and credentials again themselves
 * (server/api/admit.ts).
 */
import { NextResponse, type NextRequest } from "next/server";
import { checkOrigin, hasToken, originPolicyFromEnv } from "./server/api/security";
import type { Kiln } from "./server/runtime";

const policy = originPolicyFromEnv();
const token = process.env.KILN_TOKEN || undefined;
const team = process.env.KILN_AUTH === "team";

/** Pages anyone may open in team mode: signing in, and the one-time links. */
const OPEN_IN_TEAM_MODE = /^\/(sign-in|setup\/[^/]+|invite\/[^/]+|reset\/[^/]+|icon\.svg)$/;
/** File routes among the pages: they answer 401 themselves, as every API route does. */
const FILE_ROUTES = /^\/(versions\/[^/]+\/render|transfers\/[^/]+\/file)$/;

function redirectTo(request: NextRequest, pathname: string): NextResponse {
  const target = request.nextUrl.clone();
  target.pathname = pathname;
  target.search = "";
  target.searchParams.set("next", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.redirect(target, 303);
}

/**
 * Whether the request carries a credential of a person. The running Kiln is shared through
 * globalThis (server/runtime.ts), so this reads the same credential cache as the API routes
 * without loading the server's modules into the proxy.
 */
async function signedIn(request: NextRequest): Promise<boolean> {
  const running = (globalThis as Record<symbol, Promise<Kiln> | undefined>)[Symbol.for("kiln.runtime")];
  if (!running) return false;
  const kiln = await running.catch(() => null);
  if (!kiln) return false;
  const resolved = await kiln.teams.credentials.resolve(request.headers, "browser");
  return "caller" in resolved;
}

export async function proxy(request: NextRequest) {
  const refused = checkOrigin(request, policy);
  if (refused) return NextResponse.json({ ok: false, error: refused.error }, { status: refused.status });
  const path = request.nextUrl.pathname;
  if (team) {
    if (path === "/login") {
      const signIn = request.nextUrl.clone();
      signIn.pathname = "/sign-in";
      return NextResponse.redirect(signIn, 303);
    }
    if (OPEN_IN_TEAM_MODE.test(path) || FILE_ROUTES.test(path) || (await signedIn(request))) return NextResponse.next();
    return redirectTo(request, "/sign-in");
  }
  if (token && path !== "/login" && !hasToken(request.headers, token)) return redirectTo(request, "/login");
  return NextResponse.next();
}

// API routes (and /events) check Host, Origin and token themselves (server/api/security.ts); running the proxy
// for them too would only add latency to every tool call.
export const config = { matcher: ["/((?!tools|events|mcp|api/|\\.well-known/|screenshots/|openapi.json|schemas/|_next/static|_next/image|favicon.ico).*)"] };
