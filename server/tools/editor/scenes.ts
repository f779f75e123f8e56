/** Editor tools for scenes, cameras and materials. */
import { z } from "zod";
import { appParam, color, name, num, vec3, vecOut } from "../schemas";
import { appOut, createOutcomeOut, ifExistsParam, materialOut, sceneTool } from "./scene-tool";

export const createScene = sceneTool({
  name: "create_scene",
  description: "Create a scene and make it the app's active scene. With if_exists: replace, an existing scene of that name is emptied and its camera reset.",
  input: z.strictObject({ name: name("Scene name"), if_exists: ifExistsParam(), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), active: z.boolean(), outcome: createOutcomeOut }),
});

export const openScene = sceneTool({
  name: "open_scene",
  description: "Make an existing scene the app's active scene.",
  input: z.strictObject({ name: name("Scene name"), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), active: z.boolean() }),
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

export const createMaterial = sceneTool({
  name: "create_material",
  description: "Create a material (base colour, metallic, roughness) shared by the app's scenes.",
  input: z.strictObject({
    name: name("Material name"),
    color: color(),
    metallic: num(z.number().min(0).max(1)).default(0),
    roughness: num(z.number().min(0).max(1)).default(0.5),
    if_exists: ifExistsParam(),
    app: appParam(),
  }),
  output: z.object({ app: appOut, material: materialOut, outcome: createOutcomeOut }),
});

export const setMaterial = sceneTool({
  name: "set_material",
  description: "Assign a material to a mesh object.",
  input: z.strictObject({ target: name("Target"), material: name("Material name"), scene: name("Scene name").optional(), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), target: z.string(), material: z.string() }),
  idempotent: true,
});
