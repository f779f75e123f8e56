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
/** What an imported mesh carries beyond geometry (scene/operations.ts describeAssetData). */
export const assetDataOut = z.object({
  uv_sets: z.number().optional(), vertex_colors: z.boolean().optional(),
  material_slots: z.array(z.string().nullable()).optional(),
  skin: z.object({ joints: z.array(z.string()) }).optional(),
  morph_targets: z.array(z.object({ name: z.string(), default_weight: z.number(), weight: z.number() })).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
});

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
  asset: assetDataOut.optional(),
});

const textureOut = z.object({
  image: z.string().describe("Id of the image record (image/<sha256>)"), uv: z.number().describe("UV set, 0 or 1"),
  offset: z.array(z.number()).optional(), scale: z.array(z.number()).optional(), rotation: z.number().optional(),
});
export const materialOut = z.object({
  name: z.string(), color: colorOut, metallic: z.number(), roughness: z.number(),
  textures: z.record(z.string(), textureOut).optional().describe("Texture slots: baseColor, normal, metallicRoughness, occlusion, emissive"),
  emissive: z.object({ r: z.number(), g: z.number(), b: z.number() }).optional(),
  alpha_mode: z.string().optional(), alpha_cutoff: z.number().optional(), double_sided: z.boolean().optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
});

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
