/** `/reset/<secret>`: a one-time link to choose a new password (server/teams/invites.ts). */
import { LinkPage } from "../../_components/link-page";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln: choose a new password", referrer: "no-referrer" };

export default async function Page({ params }: { params: Promise<{ secret: string }> }) {
  return <LinkPage kind="reset" secret={(await params).secret} />;
}
