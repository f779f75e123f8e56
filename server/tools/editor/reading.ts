/** Editor tools that only read a scene. */
import { z } from "zod";
import { describeAssetData, describeMaterial, describeObject } from "../../scene/operations";
import { appMaterials, getApp, getScene, listScenes, sceneObjects } from "../../scene/state";
import { defineTool } from "../define-tool";
import { appParam, name, vecOut } from "../schemas";
import { appOut, assetDataOut, materialOut, objectOut } from "./scene-tool";

export const getSceneTool = defineTool({
  name: "get_scene",
  group: "editor",
  access: "read",
  description: "The full scene as JSON: camera, objects (with hierarchy and transforms) and the app's materials; of the working state, or as a version (v001) holds it, without restoring it.",
  input: z.strictObject({
    scene: name("Scene name").optional(), app: appParam(),
    version: z.string().min(1).max(20).optional().describe("A version id such as v001: the scene as that version holds it instead of the working state (nothing is restored)."),
  }),
  output: z.object({
    app: appOut, scene: z.string(), active_scene: z.string(), scenes: z.array(z.string()),
    camera: z.object({ position: vecOut, rotation: vecOut, fov: z.number() }),
    objects: z.array(objectOut), materials: z.array(materialOut),
  }),
  handler: async (input, { kiln }) => {
    const state = input.version ? await kiln.versions.stateOf(input.version, "version") : kiln.workspace.state;
    const app = input.app ?? kiln.config.defaultApp;
    const scene = getScene(state, app, input.scene);
    return {
      app, scene: scene.name, active_scene: getApp(state, app).activeScene,
      scenes: listScenes(state, app).map((s) => s.name), camera: scene.camera,
      objects: sceneObjects(state, scene).map((o) => {
        const asset = describeAssetData(state, o);
        return { ...describeObject(o), ...(asset ? { asset } : {}) };
      }),
      materials: appMaterials(state, app).map(describeMaterial),
    };
  },
});

export const listObjects = defineTool({
  name: "list_objects",
  group: "editor",
  access: "read",
  description: "The objects of a scene (name, type, parent, and for imported assets: UV sets, vertex colours, material slots, skin, morph targets), optionally of one kind.",
  input: z.strictObject({ scene: name("Scene name").optional(), kind: z.enum(["mesh", "empty", "light"]).optional(), app: appParam() }),
  output: z.object({
    app: appOut, scene: z.string(), total: z.number(),
    objects: z.array(z.object({ name: z.string(), kind: z.string(), type: z.string(), parent: z.string().nullable(), asset: assetDataOut.optional() })),
  }),
  handler: async (input, { kiln }) => {
    const app = input.app ?? kiln.config.defaultApp;
    const scene = getScene(kiln.workspace.state, app, input.scene);
    const objects = sceneObjects(kiln.workspace.state, scene)
      .filter((o) => !input.kind || o.kind === input.kind)
      .map((o) => {
        const d = describeObject(o), asset = describeAssetData(kiln.workspace.state, o);
        return { name: d.name, kind: d.kind, type: d.type, parent: d.parent, ...(asset ? { asset } : {}) };
      });
    return { app, scene: scene.name, total: objects.length, objects };
  },
});
