/**
 * Editor tools whose effect is a scene operation share one handler: resolve the app, run the
 * operation through the workspace (which logs it), return the operation's result.
 */
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../define-tool";
import { colorOut, vecOut } from "../schemas";
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
