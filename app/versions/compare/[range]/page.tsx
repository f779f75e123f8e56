/**
 * `/versions/compare/<from>...<to>`: two states of the project compared on a page of their own
 * (either side a version id or `working`), as GitHub's compare view: the changes per app and the
 * renders of both sides as 2-up, swipe or onion skin. The diff comes with the HTML.
 */
import { notFound } from "next/navigation";
import { getKiln } from "@/server/runtime";
import type { BranchList, Diff, VersionList } from "../../../_lib/studio-api";
import { parseRange } from "../../_lib/links";
import { SHOWN } from "../../_components/limits";
import { CompareView } from "../../_components/compare-view";

export const dynamic = "force-dynamic";

const decoded = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export async function generateMetadata({ params }: { params: Promise<{ range: string }> }) {
  const sides = parseRange(decoded((await params).range));
  return { title: sides ? `Kiln · ${sides.from} … ${sides.to}` : "Kiln · Compare" };
}

export default async function ComparePage({ params }: { params: Promise<{ range: string }> }) {
  const sides = parseRange(decoded((await params).range));
  if (!sides) notFound();
  const kiln = await getKiln();
  const [versions, branches] = await Promise.all([kiln.versions.list(SHOWN, 0) as Promise<VersionList>, kiln.versions.listBranches() as Promise<BranchList>]);
  let diff: Diff | undefined, error: string | undefined;
  try {
    diff = (await kiln.versions.diff(sides.from, sides.to)) as Diff;
  } catch (e) {
    // An unknown version: the page says so and offers the pickers to choose another.
    error = (e as Error).message;
  }
  return <CompareView from={sides.from} to={sides.to} initial={{ versions, branches, diff, error }} />;
}
