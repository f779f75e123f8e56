/** Editor tools for scenes, cameras and materials. */
import { z } from "zod";
import { appParam, color, name, num, vec3, vecOut } from "../schemas";
import { appOut, createOutcomeOut, ifExistsParam, materialOut, sceneTool } from "./scene-tool";
import { defineTool } from "../define-tool";
import { readTextureFile } from "../../pipeline/texture-file";
import type { ImageRecord, TextureRef, TextureSlot } from "../../scene/types";

/** The app's active scene before the call, when the call changed it; null when the scene was already active. */
const switchedFromOut = z.string().nullable().describe("The scene that was the app's active scene before this call, when it changed; null when this scene was already active.");

export const createScene = sceneTool({
  name: "create_scene",
  description: "Create a scene and make it the app's active scene (switched_from names the scene that was active before, when this changed it). With if_exists: replace, an existing scene of that name is emptied and its camera reset.",
  input: z.strictObject({ name: name("Scene name"), if_exists: ifExistsParam(), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), active: z.boolean(), outcome: createOutcomeOut, switched_from: switchedFromOut }),
});

export const openScene = sceneTool({
  name: "open_scene",
  description: "Make an existing scene the app's active scene.",
  input: z.strictObject({ name: name("Scene name"), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), active: z.boolean(), switched_from: switchedFromOut }),
  idempotent: true,
});

export const setCamera = sceneTool({
  name: "set_camera",
  description: "Place the scene camera; fov is the vertical field of view in degrees.",
  input: z.strictObject({
    position: vec3("position").optional(),
    rotation: vec3("rotation").optional(),
    fov: num(z.number().gt(1).lt(179)).optional(),
    scene: name("Scene name").optional(),
    app: appParam(),
  }),
  output: z.object({ app: appOut, scene: z.string(), camera: z.object({ position: vecOut, rotation: vecOut, fov: z.number() }) }),
  idempotent: true,
});

const textureParam = (slot: string) =>
  z.strictObject({
    path: z.string().min(1).max(4096).describe("PNG or JPEG file inside the project folder (or Kiln's assets folder); relative to the project folder"),
    uv: z.union([z.literal(0), z.literal(1)]).default(0).describe("UV set the texture is mapped with"),
    offset: z.tuple([num(z.number()), num(z.number())]).optional(),
    scale: z.tuple([num(z.number()), num(z.number())]).optional(),
    rotation: num(z.number()).optional().describe("Radians, counter-clockwise (KHR_texture_transform)"),
  }).optional().describe(`${slot} texture`);

/** Tool slot names → the scene's TextureSlot names. */
const SLOTS = { base_color: "baseColor", normal: "normal", metallic_roughness: "metallicRoughness", occlusion: "occlusion", emissive: "emissive" } as const;

export const createMaterial = defineTool({
  name: "create_material",
  group: "editor",
  access: "write",
  description:
    "Create a material (base colour, metallic, roughness; optional textures for base colour, normal, metallic-roughness, occlusion and emissive, " +
    "emissive colour, alpha mode and double-sided) shared by the app's scenes. Texture files are stored in the scene by content.",
  input: z.strictObject({
    name: name("Material name"),
    color: color(),
    metallic: num(z.number().min(0).max(1)).default(0),
    roughness: num(z.number().min(0).max(1)).default(0.5),
    textures: z.strictObject(Object.fromEntries(Object.keys(SLOTS).map((k) => [k, textureParam(k)])) as Record<keyof typeof SLOTS, ReturnType<typeof textureParam>>).optional(),
    emissive: z.strictObject({ r: num(z.number().min(0)), g: num(z.number().min(0)), b: num(z.number().min(0)) }).optional(),
    alpha_mode: z.enum(["OPAQUE", "MASK", "BLEND"]).optional(),
    alpha_cutoff: num(z.number().min(0).max(1)).optional(),
    double_sided: z.boolean().optional(),
    if_exists: ifExistsParam(),
    app: appParam(),
  }),
  output: z.object({ app: appOut, material: materialOut, outcome: createOutcomeOut }),
  handler: async (input, { kiln }) => {
    const { app, textures, ...params } = input;
    // Files are read here, before the (pure) operation; the operation gets the image records.
    const images: ImageRecord[] = [];
    const refs: Partial<Record<TextureSlot, TextureRef>> = {};
    for (const [key, t] of Object.entries(textures ?? {})) {
      if (!t) continue;
      const image = await readTextureFile(kiln, t.path, `textures.${key}.path`);
      images.push(image);
      refs[SLOTS[key as keyof typeof SLOTS]] = { image: image.id, uv: t.uv, ...(t.offset ? { offset: t.offset } : {}), ...(t.scale ? { scale: t.scale } : {}), ...(t.rotation !== undefined ? { rotation: t.rotation } : {}) };
    }
    // The log keeps the image records once, in the operation's changes; its params name them only.
    const logged = Object.defineProperty(images, "toJSON", { value: () => images.map((i) => i.id), enumerable: false });
    const applied = await kiln.workspace.execute({ tool: "create_material", app: app ?? kiln.config.defaultApp, params: { ...params, textures: refs, images: logged } });
    return applied.result as z.input<typeof materialOut> as never;
  },
});

export const setMaterial = sceneTool({
  name: "set_material",
  description: "Assign a material to a mesh object.",
  input: z.strictObject({ target: name("Target"), material: name("Material name"), scene: name("Scene name").optional(), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), target: z.string(), material: z.string() }),
  idempotent: true,
});
