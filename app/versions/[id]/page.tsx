/**
 * `/versions/<id>`: a version looked at without restoring it (as Figma's version history): what
 * it is, each app's scene as Kiln's renderer draws it, and its objects (get_scene with `version`).
 * `?app=&scene=` shows another scene of an app.
 */
import { notFound } from "next/navigation";
import { callTool } from "@/server/api/trpc";
import { getKiln } from "@/server/runtime";
import { APPS } from "@/server/scene/types";
import type { BranchList } from "../../_lib/studio-api";
import { VersionPreview, type PreviewApp } from "../_components/version-preview";

export const dynamic = "force-dynamic";

/** Objects listed per scene at most (the page stays light for a huge scene; the rest are counted). */
const LISTED = 200;

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  return { title: `Kiln · ${(await params).id}` };
}

export default async function VersionPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { id } = await params;
  const query = await searchParams;
  if (!/^v\d{1,9}$/.test(id)) notFound();
  const kiln = await getKiln();
  const version = await kiln.versions.get(id).catch(() => undefined);
  if (!version) notFound();
  const branches = (await kiln.versions.listBranches()) as BranchList;
  const apps: PreviewApp[] = [];
  for (const app of APPS) {
    const wanted = query.app === app && typeof query.scene === "string" ? query.scene : undefined;
    type Scene = { scene: string; active_scene: string; scenes: string[]; objects: Record<string, unknown>[]; materials: { name: string }[] };
    const scene = (await callTool({ kiln }, "get_scene", { app, version: id, ...(wanted ? { scene: wanted } : {}) }).catch(() =>
      callTool({ kiln }, "get_scene", { app, version: id }))) as Scene;
    apps.push({
      app, scene: scene.scene, active: scene.active_scene, scenes: scene.scenes, total: scene.objects.length,
      objects: scene.objects.slice(0, LISTED), materials: scene.materials.length,
    });
  }
  return <VersionPreview version={version} branches={branches} apps={apps} />;
}
