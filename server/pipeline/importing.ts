/**
 * Adding a decoded file to an app's scene: the conversion is planned with the decoding, on the
 * worker pool (import-scene.ts); this runs the scene core's import operation through the workspace, so the whole asset is ONE logged operation
 * (a transaction rollback undoes it, replay rebuilds it).
 */
import type { Kiln } from "../runtime";
import type { ImportPlan, Rename } from "../scene/operations-import";
import type { AppId } from "../scene/types";
import type { PlanResult } from "./import-scene";

/** What an import added, as results report it. */
export interface ImportSummary {
  app: AppId;
  scene: string;
  /** The top object(s) the import created, after clash renames. */
  root: string;
  objects: number;
  meshes: number;
  materials: number;
  triangles: number;
  names: string[];
  renamed: Rename[];
}

interface ImportOutcome {
  app: AppId; scene: string; roots: string[]; objects: string[]; renamed: Rename[];
  counts: { objects: number; meshes: number; materials: number; triangles: number };
}

/**
 * The plan as the operation log records it. The changes of the operation already hold every
 * record the plan creates; logging the plan's geometry in the params too would double the size of
 * the row (hundreds of MB for a large mesh), so the params carry a summary of it instead.
 */
function logged(plan: ImportPlan): ImportPlan {
  const summary = { objects: plan.objects.map((o) => o.name), meshes: plan.meshes.map((m) => m.id), materials: plan.materials.map((m) => m.name), images: plan.images?.map((i) => i.id) ?? [] };
  return Object.defineProperty(plan, "toJSON", { value: () => summary, enumerable: false });
}

/** Adds a planned import (import-scene.ts, run on the worker pool) to the app's scene (active unless named) as one operation of `tool`. */
export async function applyImport(
  kiln: Kiln, tool: "transfer_asset" | "import_asset", app: AppId, planned: PlanResult,
  label: Record<string, unknown>, sceneName?: string,
): Promise<{ summary: ImportSummary; warnings: string[] }> {
  const { plan, warnings } = planned;
  const applied = await kiln.workspace.execute({ tool, app, params: { ...label, ...(sceneName ? { scene: sceneName } : {}), plan: logged(plan) } });
  const r = applied.result as ImportOutcome;
  const renames = r.renamed.map((x) => `name clash in ${app}: ${x.kind} "${x.from}" imported as "${x.to}"`);
  return {
    summary: { app: r.app, scene: r.scene, root: r.roots[0], ...r.counts, names: r.objects, renamed: r.renamed },
    warnings: [...warnings, ...renames],
  };
}
