/** A one-time link's page: checks the link on the server, then shows its form (or why it cannot be used). */
import Link from "next/link";
import { getKiln } from "@/server/runtime";
import { findLink, type InviteKind } from "@/server/teams/invites";
import { LinkForm } from "./link-form";

export async function LinkPage({ kind, secret }: { kind: InviteKind; secret: string }) {
  const kiln = await getKiln();
  if (!kiln.teams.enabled)
    return <main className="page"><p className="notice">This Kiln runs in personal mode: nobody signs in.</p></main>;
  try {
    const link = await findLink(kiln.db, kind, secret);
    return <main className="page"><LinkForm offer={{ kind, secret, role: link.role, email: link.email, name: link.name }} /></main>;
  } catch (e) {
    return (
      <main className="page">
        <div className="card auth-card">
          <h1>This link cannot be used</h1>
          <p role="alert" className="notice error">{(e as Error).message}</p>
          <p><Link href="/sign-in">Sign in</Link>, or ask an owner for a new link.</p>
        </div>
      </main>
    );
  }
}
