/** `/invite/<secret>`: a one-time link to join (server/teams/invites.ts). */
import { LinkPage } from "../../_components/link-page";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln: join", referrer: "no-referrer" };

export default async function Page({ params }: { params: Promise<{ secret: string }> }) {
  return <LinkPage kind="invite" secret={(await params).secret} />;
}
