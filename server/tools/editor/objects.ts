/** Editor tools that create, move and delete objects. */
import { z } from "zod";
import { LIGHT_TYPES, OBJECT_TYPES } from "../../scene/types";
import { appParam, color, name, num, vec3 } from "../schemas";
import { appOut, createOutcomeOut, ifExistsParam, objectOut, sceneTool } from "./scene-tool";

const placed = { object: objectOut, scene: z.string(), app: appOut };
const sceneParam = () => name("Scene name").optional().describe("Scene to act on; default: the app's active scene.");

export const createGameObject = sceneTool({
  name: "create_gameobject",
  description: "Create an object (Plane, Cube, Sphere, Cylinder with mesh geometry, or an Empty) in a scene.",
  input: z.strictObject({
    name: name("Object name"),
    type: z.enum(OBJECT_TYPES),
    position: vec3("position").optional(),
    rotation: vec3("rotation").optional().describe("Euler degrees in the app's own convention."),
    scale: vec3("scale").optional().describe("Missing components default to 1."),
    parent: name("Parent name").optional().describe("An existing object of the same scene."),
    if_exists: ifExistsParam(),
    scene: sceneParam(),
    app: appParam(),
  }),
  output: z.object({ ...placed, outcome: createOutcomeOut }),
});

export const createLight = sceneTool({
  name: "create_light",
  description: "Create a Directional, Point or Spot light.",
  input: z.strictObject({
    name: name("Light name"),
    type: z.enum(LIGHT_TYPES),
    intensity: num(z.number().min(0).max(1e6)).default(1),
    color: color().default({ r: 1, g: 1, b: 1, a: 1 }),
    range: num(z.number().positive().max(1e6)).default(10).describe("Reach of Point and Spot lights, metres."),
    spot_angle: num(z.number().gt(0).lt(180)).default(30).describe("Cone angle of Spot lights, degrees."),
    position: vec3("position").optional(),
    rotation: vec3("rotation").optional(),
    parent: name("Parent name").optional(),
    if_exists: ifExistsParam(),
    scene: sceneParam(),
    app: appParam(),
  }),
  output: z.object({ ...placed, outcome: createOutcomeOut }),
});

export const setTransform = sceneTool({
  name: "set_transform",
  description: "Move, rotate or scale an object; components left out keep their value.",
  input: z.strictObject({
    target: name("Target"),
    position: vec3("position").optional(),
    rotation: vec3("rotation").optional(),
    scale: vec3("scale").optional(),
    scene: sceneParam(),
    app: appParam(),
  }),
  output: z.object(placed),
  idempotent: true,
});

export const deleteObject = sceneTool({
  name: "delete_object",
  description: "Delete an object and its children.",
  input: z.strictObject({ target: name("Target"), scene: sceneParam(), app: appParam() }),
  output: z.object({ app: appOut, scene: z.string(), deleted: z.array(z.string()) }),
  destructive: true,
});
