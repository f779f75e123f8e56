/**
 * A run says when one of its steps changed an app's active scene. create_scene and open_scene
 * answer `switched_from` (the scene active before, when they changed it); a recipe that only
 * meant to add a scene would otherwise leave the app on another scene without a word. The run
 * collects those answers into `active_scene_changes`, so its outcome says it, not only one
 * step's result.
 */
import type { StepRecord } from "./types";

/** One step's change of an app's active scene. */
export interface ActiveSceneChange {
  step_index: number;
  step_id: string;
  app: string;
  from: string;
  to: string;
}

/** The change of active scene a finished step's result reports, if any. */
export function activeSceneChange(index: number, record: StepRecord): ActiveSceneChange | undefined {
  if (record.status !== "succeeded") return undefined;
  const r = record.result as { switched_from?: unknown; scene?: unknown; app?: unknown } | null | undefined;
  if (typeof r?.switched_from !== "string" || typeof r.scene !== "string" || typeof r.app !== "string") return undefined;
  return { step_index: index, step_id: record.id, app: r.app, from: r.switched_from, to: r.scene };
}

/** The change in words: `made "Level" the active scene of unity (it was "Main")`. */
export function describeActiveSceneChange(change: Pick<ActiveSceneChange, "app" | "from" | "to">): string {
  return `made "${change.to}" the active scene of ${change.app} (it was "${change.from}")`;
}
