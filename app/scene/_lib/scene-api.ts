/**
 * The scene page's calls to Kiln, through the browser's tRPC client (the same procedures as
 * /tools). A failure rejects with Kiln's error message.
 */
import type { useTRPCClient } from "@/app/recipes/_lib/trpc";
import type { AppId, Vec3 } from "@/server/scene/types";
import type { GetSceneResult } from "./scene-model";

type Procedure = { query?(input: unknown): Promise<unknown>; mutate?(input: unknown): Promise<unknown> };

/** What undo and redo answer. */
export interface UndoResult { seq: number; steps: number[]; tools: string[]; changed_records: number; can_undo: boolean; can_redo: boolean }

/** What this tab's undo and redo would act on (get_undo_state). */
export interface UndoState {
  undo: { label: string; at: string } | null;
  redo: { label: string; at: string } | null;
}

/** "Undo: move Box, 2 min ago": what the Undo button says it will do. */
export function undoLabel(what: "Undo" | "Redo", step: { label: string; at: string } | null, now = Date.now()): string {
  if (!step) return `Nothing of yours to ${what.toLowerCase()}`;
  const s = Math.max(0, Math.round((now - new Date(step.at).getTime()) / 1000));
  const ago = s < 45 ? "just now" : s < 3600 ? `${Math.max(1, Math.round(s / 60))} min ago` : s < 86_400 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86_400)} d ago`;
  return `${what}: ${step.label}, ${ago}`;
}

/** The calls, bound to one app and scene. */
export function sceneApi(client: ReturnType<typeof useTRPCClient>, app: AppId | undefined, scene: string | undefined) {
  const tools = client.tools as unknown as Record<string, Procedure>;
  const where = { ...(app ? { app } : {}), ...(scene ? { scene } : {}) };
  const mutate = <T>(name: string, input: unknown) => tools[name].mutate!(input) as Promise<T>;
  return {
    getScene: () => tools.get_scene.query!(where) as Promise<GetSceneResult>,
    setTransform: (target: string, t: { position?: Vec3; rotation?: Vec3; scale?: Vec3 }) => mutate("set_transform", { ...where, target, ...t }),
    setMaterial: (target: string, material: string) => mutate("set_material", { ...where, target, material }),
    setKeyframe: (target: string, time: number) => mutate("set_keyframe", { ...where, target, time }),
    addModifier: (target: string, m: { type: "mirror" | "array"; axis?: string; count?: number }) => mutate("add_modifier", { ...where, target, ...m }),
    undo: () => mutate<UndoResult>("undo", {}),
    undoState: () => tools.get_undo_state.query!({}) as Promise<UndoState>,
    redo: () => mutate<UndoResult>("redo", {}),
  };
}

export type SceneApi = ReturnType<typeof sceneApi>;
