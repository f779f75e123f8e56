/** Editor tools for keyframes and (Blender) modifiers, which the asset pipeline exports. */
import { z } from "zod";
import { MAX_ARRAY_COUNT } from "../../scene/operations-animation";
import { appParam, name, num, vec3, vecOut } from "../schemas";
import { appOut, objectOut, sceneTool } from "./scene-tool";

const sceneParam = () => name("Scene name").optional().describe("Scene to act on; default: the app's active scene.");
const lower = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : v);
const keyOut = z.object({ time: z.number(), position: vecOut.optional(), rotation: vecOut.optional(), scale: vecOut.optional() });

export const setKeyframe = sceneTool({
  name: "set_keyframe",
  description:
    "Key an object's transform at a time (seconds). Channels given are keyed (left-out components take the current value); " +
    "with none given, the whole current transform is keyed. A key at the same time is updated.",
  input: z.strictObject({
    target: name("Target"),
    time: num(z.number().min(0).max(100_000)).describe("Seconds from the start of the animation."),
    position: vec3("position").optional(),
    rotation: vec3("rotation").optional().describe("Euler degrees in the app's own convention."),
    scale: vec3("scale").optional(),
    scene: sceneParam(),
    app: appParam(),
  }),
  output: z.object({ app: appOut, scene: z.string(), target: z.string(), keyframe: keyOut, keyframes: z.number() }),
});

export const addModifier = sceneTool({
  name: "add_modifier",
  description:
    "Add a mirror or array modifier to a Blender mesh object (applied when the asset is exported with apply_modifiers). " +
    "mirror: axis (x, y or z; default x). array: count (default 2) and offset, a fraction of the mesh's size per axis (default {x: 1}).",
  input: z.strictObject({
    target: name("Target"),
    type: z.preprocess(lower, z.enum(["mirror", "array"])),
    axis: z.preprocess(lower, z.enum(["x", "y", "z"])).optional().describe("mirror only: the local axis mirrored across."),
    count: num(z.number().int().min(1).max(MAX_ARRAY_COUNT)).optional().describe("array only: number of copies, including the original."),
    offset: vec3("offset").optional().describe("array only: shift per copy as a fraction of the mesh's bounding-box size (Blender's relative offset)."),
    scene: sceneParam(),
    app: appParam(),
  }),
  output: z.object({
    object: objectOut, scene: z.string(), app: appOut, triangles: z.number(),
    modifier: z.object({ type: z.enum(["mirror", "array"]), axis: z.string().optional(), count: z.number().optional(), offset: vecOut.optional() }),
  }),
});
