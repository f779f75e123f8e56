/** The pipeline tools (DECISIONS.md, "Pipeline"); behaviour lives in server/pipeline. */
import { z } from "zod";
import { importAssetFile } from "../pipeline/import-file";
import { RECENT_DEFAULT, RECENT_MAX, listTransferableAssets, pipelineStatus } from "../pipeline/status";
import { transferAsset } from "../pipeline/transfer";
import { defineTool } from "./define-tool";
import { appId, appParam, bool, name, num, vecOut } from "./schemas";
import { appOut } from "./editor/scene-tool";
import { actorOut } from "../teams/attribution";

const fileOut = z.object({ path: z.string(), bytes: z.number(), sha256: z.string() });
const renameOut = z.object({ kind: z.enum(["object", "material"]), from: z.string(), to: z.string() });
const importedOut = z.object({
  app: appOut, scene: z.string(), root: z.string(), objects: z.number(), meshes: z.number(), materials: z.number(), triangles: z.number(),
  names: z.array(z.string()), renamed: z.array(renameOut),
});
const formatsByTarget = z.record(z.string(), z.array(z.string()));
const pathOut = z.object({ source_app: appOut, target_app: appOut, formats: z.array(z.string()) });

export const transferAssetTool = defineTool({
  name: "transfer_asset",
  group: "pipeline",
  access: "write",
  description:
    "Export an object (with its children, meshes, materials, lights and keyframes) from one app's scene to a real file " +
    "(fbx, gltf, obj or usd, per the path table) under .kiln/assets/<transfer_id>/, and import that file into another app's " +
    "scene, converting axes. A name taken in the target gets a .001 suffix. What the format cannot carry is listed in warnings.",
  input: z.strictObject({
    source_app: appId(),
    target_app: appId(),
    asset: name("Asset name").describe("An object of the source app's active scene; its children come with it."),
    format: z.string().min(1).max(20).describe("fbx, gltf (glb), obj or usd (usda), case-insensitive; see get_pipeline_status for the paths."),
    options: z.strictObject({
      apply_modifiers: bool().optional().describe("Bake Blender modifiers into the mesh (default true); false exports the base mesh and warns."),
      include_animations: bool().optional().describe("Export keyframes (default true)."),
    }).default({}),
  }),
  output: z.object({
    transfer_id: z.string(), status: z.literal("succeeded"), source_app: appOut, target_app: appOut, asset: z.string(), format: z.string(),
    options: z.object({ apply_modifiers: z.boolean(), include_animations: z.boolean() }),
    file: fileOut, side_files: z.array(fileOut), exported: z.object({ objects: z.number(), triangles: z.number() }),
    imported: importedOut, warnings: z.array(z.string()), duration_ms: z.number(),
    timings_ms: z.object({ export: z.number(), encode: z.number(), write: z.number(), read: z.number(), decode: z.number(), import: z.number() }),
  }),
  handler: (input, { kiln }) => transferAsset(kiln, input),
});

export const listTransferableAssetsTool = defineTool({
  name: "list_transferable_assets",
  group: "pipeline",
  access: "read",
  description: "The objects of an app's active scene that can be transferred, with kind, triangle count, bounds and, per target app, the formats allowed.",
  input: z.strictObject({ app: appParam(), scene: name("Scene name").optional() }),
  output: z.object({
    app: appOut, scene: z.string(), total: z.number(), targets: formatsByTarget,
    assets: z.array(z.object({
      name: z.string(), kind: z.string(), type: z.string(), parent: z.string().nullable(), objects: z.number(),
      triangles: z.number(), own_triangles: z.number(), materials: z.array(z.string()), keyframes: z.number(), modifiers: z.number(),
      bounds: z.object({ min: vecOut, max: vecOut }).nullable(), targets: formatsByTarget,
    })),
  }),
  handler: async (input, { kiln }) => listTransferableAssets(kiln, input.app ?? kiln.config.defaultApp, input.scene),
});

const transferOut = z.object({
  transfer_id: z.string(), source_app: z.string(), target_app: z.string(), asset: z.string(), format: z.string(),
  status: z.string(), options: z.unknown(), started_at: z.string(), duration_ms: z.number().nullable(),
  started_by: actorOut.optional().describe("Who started it (get_pipeline_status's recent transfers)."),
  file: z.object({ path: z.string(), bytes: z.number().nullable(), sha256: z.string().nullable() }).nullable(),
  imported: z.unknown(), warnings: z.array(z.string()), error: z.unknown(),
});

export const getPipelineStatus = defineTool({
  name: "get_pipeline_status",
  group: "pipeline",
  access: "read",
  description: "The apps (embedded scene, or a live application connected through the bridge), the transfer path table, transfers in progress and the recent ones with outcome and duration.",
  input: z.strictObject({ limit: num(z.number().int().min(1).max(RECENT_MAX)).default(RECENT_DEFAULT).describe("How many recent transfers to list.") }),
  output: z.object({
    apps: z.array(z.object({
      app: appOut,
      connection: z.enum(["embedded", "live", "disconnected"]).describe("live: a running application is connected (docs/bridges.md); disconnected: it was and dropped, so its editor tools answer 503 until it is back."),
      live: z.object({ app_version: z.string(), file: z.string(), instance: z.string(), since: z.string(), session: z.string() }).optional(),
      disconnected_since: z.string().optional(),
      active_scene: z.string(), scenes: z.number(), objects: z.number(), targets: formatsByTarget,
    })),
    paths: z.array(pathOut),
    in_progress: z.array(z.object({ transfer_id: z.string(), source_app: z.string(), target_app: z.string(), asset: z.string(), format: z.string(), started_at: z.string(), stage: z.string() })),
    recent: z.array(transferOut),
    total_transfers: z.number(),
    workers: z.object({
      jobs: z.number().describe("Imports and transfers under way."), max_jobs: z.number().describe("Beyond this many, calls answer 503 BUSY."),
      recipe_jobs: z.number().describe("Big recipe texts being parsed on the same threads."), max_recipe_jobs: z.number().describe("Beyond this many parses, recipe calls answer 503 BUSY."),
      threads: z.number().describe("Worker threads running."), queued: z.number().describe("Decode/encode tasks waiting for a thread."),
    }),
  }),
  handler: (input, { kiln }) => pipelineStatus(kiln, input.limit),
});

export const importAsset = defineTool({
  name: "import_asset",
  group: "pipeline",
  access: "write",
  description:
    "Import a glTF/GLB, OBJ (+MTL), FBX or USDA file from the project folder or .kiln/assets into an app's scene, converting axes. " +
    "Several top-level objects are grouped under an Empty named after the file; a name taken gets a .001 suffix.",
  input: z.strictObject({
    path: z.string().min(1).max(4096).describe("File path, relative to the project folder or absolute; must be inside the project folder or .kiln/assets."),
    format: z.string().min(1).max(20).optional().describe("gltf, fbx, obj or usd; default: from the file extension."),
    scene: name("Scene name").optional().describe("Scene to import into; default: the app's active scene."),
    app: appParam(),
  }),
  output: z.object({
    app: appOut, scene: z.string(), format: z.string(), file: fileOut, side_files: z.array(z.string()),
    imported: importedOut, warnings: z.array(z.string()), duration_ms: z.number(),
  }),
  handler: (input, { kiln }) => importAssetFile(kiln, { ...input, app: input.app ?? kiln.config.defaultApp }),
});
