/**
 * The read side of the pipeline: list_transferable_assets and get_pipeline_status.
 */
import type { Kiln } from "../runtime";
import { describeObject } from "../scene/operations";
import { getApp, getScene, listScenes, sceneObjects } from "../scene/state";
import { APPS, type AppId } from "../scene/types";
import { assetBounds, objectTriangles, subtree } from "./assets";
import { TRANSFER_PATHS, targetsOf } from "./paths";
import { activeTransfers } from "./registry";
import { poolStatus } from "./worker/pool";
import { readActor } from "../teams/attribution";

/** How many finished transfers get_pipeline_status shows by default, and at most. */
export const RECENT_DEFAULT = 20;
export const RECENT_MAX = 200;

/** Every object of an app's scene as a transferable asset (an asset is an object with its descendants). */
export function listTransferableAssets(kiln: Kiln, app: AppId, sceneName?: string) {
  const state = kiln.workspace.state;
  const scene = getScene(state, app, sceneName);
  const all = sceneObjects(state, scene);
  const targets = targetsOf(app);
  const assets = all.map((o) => {
    const objects = subtree(o, all);
    const d = describeObject(o);
    return {
      name: o.name, kind: o.kind, type: d.type, parent: o.parent,
      objects: objects.length,
      triangles: objects.reduce((n, x) => n + objectTriangles(state, x), 0),
      own_triangles: objectTriangles(state, o),
      materials: [...new Set(objects.flatMap((x) => (x.material ? [x.material] : [])))],
      keyframes: objects.reduce((n, x) => n + x.keyframes.length, 0),
      modifiers: objects.reduce((n, x) => n + x.modifiers.length, 0),
      bounds: assetBounds(state, { scene, root: o, objects, sceneObjects: all }),
      targets,
    };
  });
  return { app, scene: scene.name, total: assets.length, targets, assets };
}

const parse = <T>(text: string | null, fallback: T): T => {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

/** Apps, the path table, running transfers, the most recent finished ones and the worker pool. */
export async function pipelineStatus(kiln: Kiln, limit = RECENT_DEFAULT) {
  const state = kiln.workspace.state;
  const apps = APPS.map((app) => {
    const active = getApp(state, app).activeScene;
    return {
      app, ...kiln.live.status(app), active_scene: active, scenes: listScenes(state, app).length,
      objects: sceneObjects(state, getScene(state, app, active)).length, targets: targetsOf(app),
    };
  });
  const running = activeTransfers();
  const rows = await kiln.db.transfer.findMany({ orderBy: { startedAt: "desc" }, take: limit + running.size });
  const recent = rows.filter((r) => !running.has(r.id)).slice(0, limit).map((r) => ({
    transfer_id: r.id, source_app: r.sourceApp, target_app: r.targetApp, asset: r.asset, format: r.format,
    // A row still "running" that this process is not running was cut off by a restart or crash.
    status: r.status === "running" ? "interrupted" : r.status,
    options: parse(r.options, {}), started_at: r.startedAt.toISOString(), duration_ms: r.durationMs, started_by: readActor(r),
    file: r.filePath ? { path: r.filePath, bytes: r.bytes, sha256: r.sha256 } : null,
    imported: parse(r.imported, null), warnings: parse<string[]>(r.warnings, []), error: parse(r.error, null),
  }));
  const total = await kiln.db.transfer.count();
  return {
    apps,
    paths: TRANSFER_PATHS.map((p) => ({ source_app: p.source, target_app: p.target, formats: [...p.formats] })),
    in_progress: [...running.values()],
    recent,
    total_transfers: total,
    workers: poolStatus(),
  };
}
