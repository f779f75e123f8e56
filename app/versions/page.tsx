/**
 * `/versions`: history of the working state (see _components/versions-studio.tsx). The graph, the
 * branches and the unsaved changes come with the HTML, so the page shows them before its script runs.
 */
import { getKiln } from "@/server/runtime";
import type { BranchList, Diff, VersionList } from "../_lib/studio-api";
import { SHOWN } from "./_components/limits";
import { VersionsStudio } from "./_components/versions-studio";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln · Versions" };

export default async function VersionsPage() {
  // What list_versions, list_branches and diff_versions answer (their handlers call the same).
  try {
    const kiln = await getKiln();
    const [versions, branches] = await Promise.all([kiln.versions.list(SHOWN, 0) as Promise<VersionList>, kiln.versions.listBranches() as Promise<BranchList>]);
    // The unsaved changes: the working state against the version it was saved as or restored from.
    const base = branches.branches.find((b) => b.current)?.working_base;
    const diff = base ? ((await kiln.versions.diff(base, "working")) as Diff) : undefined;
    return <VersionsStudio initial={{ versions, branches, diff }} />;
  } catch (error) {
    // The page then loads its data itself, and shows what went wrong.
    console.error(`kiln: /versions rendered without data (${(error as Error).message})`);
    return <VersionsStudio />;
  }
}
