/** `/team/*`: the people of a team-mode Kiln, their tokens, and the audit log. */
import type { ReactNode } from "react";
import { TeamTabs } from "./_components/team-tabs";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln · Team" };

export default function TeamLayout({ children }: { children: ReactNode }) {
  return (
    <main className="page page-wide">
      <div className="page-head"><h1>Team</h1></div>
      <TeamTabs />
      {children}
    </main>
  );
}
