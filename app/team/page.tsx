/** `/team`: the members (owners; others are shown their tokens). */
import { redirect } from "next/navigation";
import { currentViewer } from "../_lib/viewer-server";
import { Members } from "./_components/members";

export default async function TeamPage() {
  const viewer = await currentViewer();
  if (viewer.mode === "team" && viewer.role !== "owner") redirect("/team/tokens");
  if (viewer.mode === "personal") return <p className="notice">Kiln runs in personal mode: nobody signs in. Start it with <code>kiln serve --team</code> (or <code>KILN_AUTH=team</code>) for members and roles; see docs/teams.md.</p>;
  return <Members />;
}
