/**
 * The scene model: every piece of state is a flat record with a stable id.
 *
 * Why flat records (as tldraw's store does): an operation's effect is then a list of
 * record-level changes (before/after), which is all that undo, rollback, replay, diffs and
 * content-addressed versioning need. Nothing here knows about persistence or HTTP.
 */

/** The three applications whose scenes Kiln keeps. */
export const APPS = ["blender", "unity", "godot"] as const;
export type AppId = (typeof APPS)[number];

export type Vec3 = { x: number; y: number; z: number };
export type Color = { r: number; g: number; b: number; a: number };

export const OBJECT_TYPES = ["Plane", "Cube", "Empty", "Sphere", "Cylinder"] as const;
export type PrimitiveType = Exclude<(typeof OBJECT_TYPES)[number], "Empty">;
export const LIGHT_TYPES = ["Directional", "Point", "Spot"] as const;
export type LightType = (typeof LIGHT_TYPES)[number];

export interface Transform { position: Vec3; rotation: Vec3; scale: Vec3 }

export interface Camera { position: Vec3; rotation: Vec3; fov: number }

/** Per-app record: which scene is active. */
export interface AppRecord { type: "app"; id: string; app: AppId; activeScene: string }

/** A scene of one app, with its camera. */
export interface SceneRecord { type: "scene"; id: string; app: AppId; name: string; camera: Camera }

export interface LightProps { type: LightType; intensity: number; color: Color; range: number; spotAngle: number }

export interface Keyframe { time: number; position?: Vec3; rotation?: Vec3; scale?: Vec3 }
export type Modifier = { type: "mirror" | "array"; axis?: "x" | "y" | "z"; count?: number; offset?: Vec3 };

/**
 * An object of a scene. `kind` says what it is; a mesh object's geometry is either a
 * built-in primitive (generated on demand, never stored) or an imported mesh record.
 */
export interface ObjectRecord extends Transform {
  type: "object";
  id: string;
  app: AppId;
  scene: string;
  name: string;
  kind: "mesh" | "empty" | "light";
  primitive: PrimitiveType | null;
  mesh: string | null; // id of a MeshRecord for imported geometry
  parent: string | null; // object name in the same scene
  material: string | null; // material name in the same app
  light: LightProps | null;
  keyframes: Keyframe[];
  modifiers: Modifier[];
}

/** Materials belong to an app (as Unity assets and Blender datablocks do), shared by its scenes. */
export interface MaterialRecord { type: "material"; id: string; app: AppId; name: string; color: Color; metallic: number; roughness: number }

/**
 * Imported geometry, content-addressed: the id is derived from the data, so equal meshes share a record.
 * Arrays are stored as base64 of their little-endian float32 (positions, normals) and uint32
 * (indices) bytes, so a record stays plain JSON yet a million-triangle mesh is three strings rather
 * than six million numbers to serialise. Records written before that hold plain number arrays;
 * read them through mesh-data.ts, which accepts both.
 */
export interface MeshRecord { type: "mesh"; id: string; positions: StoredArray; normals: StoredArray; indices: StoredArray }

/** An array as a MeshRecord stores it: base64 of its bytes, or (older records) plain numbers. */
export type StoredArray = string | number[];

export type SceneEntity = AppRecord | SceneRecord | ObjectRecord | MaterialRecord | MeshRecord;

/** The whole working state: record id → record. Readers must treat records as immutable. */
export type SceneState = ReadonlyMap<string, SceneEntity>;

/** One record-level effect of an operation: `before`/`after` null mean absent. */
export interface Change { id: string; before: SceneEntity | null; after: SceneEntity | null }

/** An editor operation as data: which tool, on which app, with which (validated) params. */
export interface Operation { tool: string; app: AppId; params: Record<string, unknown> }

/** What planning an operation yields: the changes to apply and the tool's result. */
export interface OperationOutcome<R = unknown> { changes: Change[]; result: R }

/** Record ids. Names are URI-encoded so any name is safe inside an id. */
export const ids = {
  app: (app: AppId) => `app/${app}`,
  scene: (app: AppId, scene: string) => `scene/${app}/${encodeURIComponent(scene)}`,
  object: (app: AppId, scene: string, name: string) =>
    `object/${app}/${encodeURIComponent(scene)}/${encodeURIComponent(name)}`,
  material: (app: AppId, name: string) => `material/${app}/${encodeURIComponent(name)}`,
  mesh: (hash: string) => `mesh/${hash}`,
};
