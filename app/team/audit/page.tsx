/** `/team/audit`: the audit log (owners). */
import { redirect } from "next/navigation";
import { currentViewer } from "../../_lib/viewer-server";
import { AuditLog } from "../_components/audit-log";

export default async function AuditPage() {
  const viewer = await currentViewer();
  if (viewer.mode === "team" && viewer.role !== "owner") redirect("/team/tokens");
  return <AuditLog />;
}
