/** `/setup/<secret>`: a one-time link to set up the first owner (server/teams/invites.ts). */
import { LinkPage } from "../../_components/link-page";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln: set up the first owner", referrer: "no-referrer" };

export default async function Page({ params }: { params: Promise<{ secret: string }> }) {
  return <LinkPage kind="setup" secret={(await params).secret} />;
}
