/** `/.well-known/oauth-protected-resource[/mcp]`: /mcp's OAuth metadata in team mode (RFC 9728; server/teams/http.ts). */
import { handleResourceMetadata } from "@/server/teams/http";
import { fail } from "@/server/api/envelope";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ resource?: string[] }> }) {
  const rest = (await params).resource ?? [];
  if (rest.length > 1 || (rest.length === 1 && rest[0] !== "mcp")) return fail(404, { code: "NOT_FOUND", message: "Kiln's one protected resource is /mcp." });
  return handleResourceMetadata(req);
}
