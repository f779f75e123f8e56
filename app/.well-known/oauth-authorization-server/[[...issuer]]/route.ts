/** `/.well-known/oauth-authorization-server[/api/auth]`: the authorization server's metadata (RFC 8414; server/teams/http.ts). */
import { handleAuthServerMetadata } from "@/server/teams/http";
import { fail } from "@/server/api/envelope";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ issuer?: string[] }> }) {
  const rest = (await params).issuer ?? [];
  if (rest.length > 0 && rest.join("/") !== "api/auth") return fail(404, { code: "NOT_FOUND", message: "Kiln's one issuer is /api/auth." });
  return handleAuthServerMetadata(req);
}
