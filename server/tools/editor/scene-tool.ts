/**
 * Editor tools whose effect is a scene operation share one handler: resolve the app, run the
 * operation through the workspace (which logs it), return the operation's result.
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../define-tool";
import { colorOut, vecOut } from "../schemas";
import { IF_EXISTS } from "../../scene/operations";
import type { AppId } from "../../scene/types";

/** Defines a state-changing editor tool backed by the scene operation of the same name. */
export function sceneTool<I extends z.ZodObject, O extends z.ZodType>(def: {
  name: string; description: string; input: I; output: O; idempotent?: boolean; destructive?: boolean;
}): ToolDefinition<I, O> {
  return defineTool({
    ...def,
    group: "editor",
    access: "write",
    handler: async (input, { kiln }) => {
      const { app, ...params } = input as { app?: AppId } & Record<string, unknown>;
      const applied = await kiln.workspace.execute({ tool: def.name, app: app ?? kiln.config.defaultApp, params });
      return applied.result as z.input<O>;
    },
  });
}

export const lightOut = z.object({
  type: z.enum(["Directional", "Point", "Spot"]), intensity: z.number(), color: colorOut, range: z.number(), spotAngle: z.number(),
});

/** An object as tools return it. */
export const objectOut = z.object({
  name: z.string(),
  kind: z.enum(["mesh", "empty", "light"]),
  type: z.string(),
  parent: z.string().nullable(),
  position: vecOut, rotation: vecOut, scale: vecOut,
  material: z.string().nullable(),
  light: lightOut.optional(),
  keyframes: z.array(z.object({ time: z.number(), position: vecOut.optional(), rotation: vecOut.optional(), scale: vecOut.optional() })).optional(),
  modifiers: z.array(z.record(z.string(), z.unknown())).optional(),
});

export const materialOut = z.object({ name: z.string(), color: colorOut, metallic: z.number(), roughness: z.number() });

export const appOut = z.enum(["blender", "unity", "godot"]);

/**
 * The `if_exists` parameter of the creating tools (create_scene, create_gameobject, create_light,
 * create_material); its meaning is the scene core's (server/scene/operations.ts).
 */
export const ifExistsParam = () =>
  z.enum(IF_EXISTS).default("error").describe(
    "When the name is taken: error (409, the default), reuse (return the existing one unchanged if it is of the same type), " +
    "or replace (put a new one in its place, as one logged operation that history and rollback show).",
  );

/** What a creating tool did: created a new thing, reused the existing one or replaced it. */
export const createOutcomeOut = z.enum(["created", "reused", "replaced"]);
