/**
 * `/oauth/consent`: the Studio's consent page of the OAuth flow for MCP clients (docs/teams.md,
 * "Signing in AI clients with OAuth"). The authorization server sends a signed-in person here
 * with the client and the scopes it asks for; Allow grants what the person's role allows (a
 * viewer grants `read` only), Deny refuses. The page's query is the library's signed request,
 * sent back as it is with the answer.
 */
import { getKiln } from "@/server/runtime";
import { grantableScopes, OAUTH_SCOPES } from "@/server/teams/oauth";
import { currentViewer } from "../../_lib/viewer-server";
import { ConsentForm } from "./consent-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln: allow an AI client" };

const first = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

export default async function Consent({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const kiln = await getKiln();
  const viewer = await currentViewer();
  const clientId = first(params.client_id) ?? "";
  const client = kiln.teams.enabled && clientId
    ? await kiln.db.oauthClient.findUnique({ where: { clientId }, select: { name: true, uri: true, disabled: true } })
    : null;
  if (!kiln.teams.enabled || !client || client.disabled || !viewer.signedIn || !first(params.sig))
    return (
      <main className="page">
        <div className="card auth-card">
          <h1>Nothing to allow</h1>
          <p role="alert" className="notice error">This is not a request from an AI client Kiln knows, or you are not signed in. Start again from the client.</p>
        </div>
      </main>
    );
  const asked = (first(params.scope) ?? "").split(" ").filter(Boolean);
  const granted = grantableScopes(viewer.role, asked);
  return (
    <main className="page">
      <ConsentForm
        client={client.name || clientId}
        person={viewer.name ?? ""}
        role={viewer.role}
        kiln={(OAUTH_SCOPES as readonly string[]).filter((s) => granted.includes(s))}
        refused={asked.filter((s) => !granted.includes(s))}
        granted={granted.join(" ")}
      />
    </main>
  );
}
