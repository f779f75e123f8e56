/**
 * First line of defence for every request, pages included: a Host that is not a loopback name
 * or configured (DNS rebinding) or a foreign Origin gets 403 before any route runs. With
 * KILN_TOKEN set, a page also needs the token (bearer header or the session cookie that /login
 * sets); without it a browser is sent to /login. API routes check Host, Origin and token again
 * themselves in server/api/security.ts.
 */
import { NextResponse, type NextRequest } from "next/server";
import { checkOrigin, hasToken, originPolicyFromEnv } from "./server/api/security";

const policy = originPolicyFromEnv();
const token = process.env.KILN_TOKEN || undefined;

export function proxy(request: NextRequest) {
  const refused = checkOrigin(request, policy);
  if (refused) return NextResponse.json({ ok: false, error: refused.error }, { status: refused.status });
  if (token && request.nextUrl.pathname !== "/login" && !hasToken(request.headers, token)) {
    const login = request.nextUrl.clone();
    login.pathname = "/login";
    login.search = "";
    login.searchParams.set("next", `${request.nextUrl.pathname}${request.nextUrl.search}`);
    return NextResponse.redirect(login, 303);
  }
  return NextResponse.next();
}

// API routes (and /events) check Host, Origin and token themselves (server/api/security.ts); running the proxy
// for them too would only add latency to every tool call.
export const config = { matcher: ["/((?!tools|events|mcp|api/|screenshots/|openapi.json|schemas/|_next/static|_next/image|favicon.ico).*)"] };
