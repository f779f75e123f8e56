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

/** `weights`: morph target weights of the object's mesh at this time (imported skins and shapes). */
export interface Keyframe { time: number; position?: Vec3; rotation?: Vec3; scale?: Vec3; weights?: number[] }
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
  /**
   * Material slots of a mesh whose record has `groups`, one material name (or null) per group;
   * `material` is then the first slot. Absent on single-material objects and older records.
   */
  materials?: (string | null)[];
  /** Skin of an imported skinned mesh; see SkinBinding. */
  skin?: SkinBinding;
  /** Morph target weights when they differ from the mesh's defaults. */
  morphWeights?: number[];
  /** Custom properties from the file (glTF extras, FBX user properties, USD customData). */
  properties?: Record<string, unknown>;
}

/**
 * The joints (objects of the same scene, by name) that deform a mesh object, and one inverse
 * bind matrix per joint: 16 numbers, column-major, in the app's own axes (as the object's world
 * matrix is), so `world(joint) · inverseBind` is the joint's deformation at rest = identity.
 */
export interface SkinBinding { joints: string[]; inverseBindMatrices: number[] }

/** Texture slots of a material (glTF's metallic-roughness set). */
export const TEXTURE_SLOTS = ["baseColor", "normal", "metallicRoughness", "occlusion", "emissive"] as const;
export type TextureSlot = (typeof TEXTURE_SLOTS)[number];

/** A material's use of an image: which ImageRecord, which UV set, KHR_texture_transform values. */
export interface TextureRef { image: string; uv: 0 | 1; offset?: [number, number]; scale?: [number, number]; rotation?: number }

/** Materials belong to an app (as Unity assets and Blender datablocks do), shared by its scenes. */
export interface MaterialRecord {
  type: "material"; id: string; app: AppId; name: string; color: Color; metallic: number; roughness: number;
  /** Optional since issue 15; absent means none (older records). */
  textures?: Partial<Record<TextureSlot, TextureRef>>;
  emissive?: { r: number; g: number; b: number };
  alphaMode?: "OPAQUE" | "MASK" | "BLEND";
  alphaCutoff?: number;
  doubleSided?: boolean;
  properties?: Record<string, unknown>;
}

/**
 * An image file (PNG or JPEG bytes as they came, base64), content-addressed like meshes: the id
 * is the SHA-256 of the bytes, so a texture used by many materials, apps and imports is stored once.
 */
export interface ImageRecord { type: "image"; id: string; name: string; mimeType: "image/png" | "image/jpeg"; data: string }

/**
 * Imported geometry, content-addressed: the id is derived from the data, so equal meshes share a record.
 * Arrays are stored as base64 of their little-endian float32 (positions, normals) and uint32
 * (indices) bytes, so a record stays plain JSON yet a million-triangle mesh is three strings rather
 * than six million numbers to serialise. Records written before that hold plain number arrays;
 * read them through mesh-data.ts, which accepts both.
 */
export interface MeshRecord {
  type: "mesh"; id: string; positions: StoredArray; normals: StoredArray; indices: StoredArray;
  /** Optional vertex data (issue 15), base64 like the rest: float32 UVs (glTF's orientation, V down), linear RGBA colours, uint16 joints, float32 weights. */
  uv0?: string; uv1?: string; colors?: string; joints?: string; weights?: string;
  /** Material slots: consecutive ranges of `indices`. */
  groups?: { start: number; count: number }[];
  /** Morph targets: float32 position (and normal) offsets per vertex, and default weights. */
  morphTargets?: { name: string; positions: string; normals?: string }[];
  morphWeights?: number[];
}

/** An array as a MeshRecord stores it: base64 of its bytes, or (older records) plain numbers. */
export type StoredArray = string | number[];

export type SceneEntity = AppRecord | SceneRecord | ObjectRecord | MaterialRecord | MeshRecord | ImageRecord;

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
  image: (hash: string) => `image/${hash}`,
};
