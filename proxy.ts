/**
 * First line of defence for every request, pages included: a Host that is not a loopback name
 * or configured (DNS rebinding) or a foreign Origin gets 403 before any route runs. API routes
 * check again (and check the bearer token) in server/api/security.ts.
 */
import { NextResponse, type NextRequest } from "next/server";
import { checkOrigin, originPolicyFromEnv } from "./server/api/security";

const policy = originPolicyFromEnv();

export function proxy(request: NextRequest) {
  const refused = checkOrigin(request, policy);
  if (refused) return NextResponse.json({ ok: false, error: refused.error }, { status: refused.status });
  return NextResponse.next();
}


// API routes check Host, Origin and token themselves (server/api/security.ts); running the proxy
// for them too would only add latency to every tool call.
export const config = { matcher: ["/((?!tools|mcp|api/|screenshots/|openapi.json|schemas/|_next/static|_next/image|favicon.ico).*)"] };
