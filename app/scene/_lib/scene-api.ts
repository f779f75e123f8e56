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
    redo: () => mutate<UndoResult>("redo", {}),
  };
}

export type SceneApi = ReturnType<typeof sceneApi>;
