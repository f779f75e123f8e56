/**
 * The bridge protocol's messages as zod schemas (docs/bridges.md is the contract). Everything a live
 * application sends is validated here before it reaches the rest of Kiln: the app is a program on
 * this machine, but not one Kiln trusts to send well-formed scenes.
 */
import { z } from "zod";
import { APPS, LIGHT_TYPES, OBJECT_TYPES } from "../scene/types";

/**
 * The protocol version Kiln speaks (docs/bridges.md, "Versioning"). 2: the hello carries no
 * records; the app's scene follows in `records` frames ended by `sync`.
 */
export const PROTOCOL_VERSION = 2;
/** Largest frame before the hello has been taken (the hello itself is small). */
export const MAX_HELLO_FRAME = 64 * 1024;
/** Records in one `records` frame, and in a whole first sync. */
export const MAX_RECORDS_PER_FRAME = 10_000;
export const MAX_SYNC_RECORDS = 2_500_000;
/** Largest text frame, and largest frame of any kind (binary frames carry meshes and images). */
export const MAX_TEXT_FRAME = 16 * 1024 * 1024;
export const MAX_FRAME = 256 * 1024 * 1024;
/**
 * Kiln sends a `ping` request every HEARTBEAT_MS (an application-level ping, which Godot 3's
 * script sees, unlike WebSocket pings); a peer silent for DEAD_AFTER_MS while no request of Kiln's
 * is pending is disconnected (a pending request has its own deadline).
 */
export const HEARTBEAT_MS = 5_000;
export const DEAD_AFTER_MS = 10_000;
/**
 * How long Kiln waits for a reply: most requests (KILN_BRIDGE_REPLY_TIMEOUT_MS changes it, for
 * tests of late replies), then renders and exports.
 */
export const REPLY_TIMEOUT_MS = Math.min(Math.max(Number(process.env.KILN_BRIDGE_REPLY_TIMEOUT_MS) || 30_000, 500), 300_000);
export const SLOW_REPLY_TIMEOUT_MS = 300_000;
/** Most records one message may carry: a hello with a whole scene, or an edit. */
export const MAX_RECORDS = 200_000;

// Limits as the tools have them (server/tools/schemas.ts), so what a live app reports can be
// exported and shown like anything made with the tools.
const COORD = 1e9;
const num = z.number().finite().min(-COORD).max(COORD);
const vec = z.strictObject({ x: num, y: num, z: num });
const unit = z.number().finite().min(0).max(1);
const color = z.strictObject({ r: unit, g: unit, b: unit, a: unit });
const name = z.string().min(1).max(200).regex(/^[^\u0000-\u001f\u007f]+$/, "must not contain control characters")
  .refine((s) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s), "must be valid Unicode");
const app = z.enum(APPS);

const appRecord = z.strictObject({ type: z.literal("app"), id: z.string().optional(), app, activeScene: name });
const sceneRecord = z.strictObject({
  type: z.literal("scene"), id: z.string().optional(), app, name,
  camera: z.strictObject({ position: vec, rotation: vec, fov: z.number().finite().gt(0).lt(180) }),
});
const light = z.strictObject({
  type: z.enum(LIGHT_TYPES), intensity: z.number().finite().min(0).max(1e6), color,
  range: z.number().finite().gt(0).max(1e6), spotAngle: z.number().finite().gt(0).lt(180),
});
const keyframe = z.strictObject({ time: z.number().finite().min(0).max(1e6), position: vec.optional(), rotation: vec.optional(), scale: vec.optional() });
const modifier = z.strictObject({
  type: z.enum(["mirror", "array"]), axis: z.enum(["x", "y", "z"]).optional(),
  count: z.number().int().min(1).max(1000).optional(), offset: vec.optional(),
});
const objectRecord = z.strictObject({
  type: z.literal("object"), id: z.string().optional(), app, scene: name, name,
  kind: z.enum(["mesh", "empty", "light"]),
  primitive: z.enum(OBJECT_TYPES).exclude(["Empty"]).nullable(),
  /** `mesh/<sha256>` of a mesh Kiln has, or `blob:KEY` of a mesh blob sent before this message. */
  mesh: z.string().regex(/^(mesh\/[0-9a-f]{64}|blob:.{1,300})$/).nullable(),
  parent: name.nullable(), material: name.nullable(), light: light.nullable(),
  position: vec, rotation: vec, scale: vec,
  keyframes: z.array(keyframe).max(10_000), modifiers: z.array(modifier).max(16),
}).refine((o) => (o.kind === "light") === (o.light !== null), "a light object, and only one, has light properties")
  .refine((o) => o.kind === "mesh" ? (o.primitive === null) !== (o.mesh === null) : o.primitive === null && o.mesh === null,
    "a mesh object has either a primitive or a mesh; other objects have neither");
const materialRecord = z.strictObject({
  type: z.literal("material"), id: z.string().optional(), app, name, color,
  metallic: unit, roughness: unit,
});

/** A record as a live app reports it; ids are recomputed by Kiln from the fields. */
export const appSideRecord = z.discriminatedUnion("type", [appRecord, sceneRecord, objectRecord, materialRecord]);
export type AppSideRecord = z.infer<typeof appSideRecord>;

const recordId = z.string().min(1).max(2000);
const stamp = z.strictObject({ project: z.string().max(200), seq: z.number().int().min(0) }).nullable();

export const helloMessage = z.object({
  type: z.literal("hello"),
  protocol: z.number().int(),
  app,
  app_version: z.string().max(100),
  instance: z.string().min(1).max(100),
  file: z.string().max(4096),
  stamp: stamp.default(null),
  dirty: z.boolean().default(false),
});
export type Hello = z.infer<typeof helloMessage>;

/** Part of the app's scene in the first sync, right after the hello. */
export const recordsMessage = z.object({ type: z.literal("records"), records: z.array(appSideRecord).max(MAX_RECORDS_PER_FRAME) });
/** The end of the first sync. */
export const syncMessage = z.object({ type: z.literal("sync") });

export const editMessage = z.object({
  type: z.literal("edit"),
  id: z.string().min(1).max(100),
  records: z.array(appSideRecord).max(MAX_RECORDS).default([]),
  deleted: z.array(recordId).max(MAX_RECORDS).default([]),
});
export type Edit = z.infer<typeof editMessage>;

export const replyMessage = z.object({
  type: z.literal("reply"),
  id: z.string().min(1).max(100),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.object({ code: z.string().max(100), message: z.string().max(10_000) }).optional(),
});
export type Reply = z.infer<typeof replyMessage>;

/** The message types an app may send after its hello. */
export const appMessage = z.discriminatedUnion("type", [
  editMessage, replyMessage, z.object({ type: z.literal("bye") }),
]);

/** A short description of what failed validation, for the app's log. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "message"}: ${i.message}`).join("; ");
}
