/**
 * The import operation: adds a whole imported asset (objects, their meshes and materials) to a
 * scene as ONE operation, so it is logged once, undone at once by a transaction rollback and
 * rebuilt at once by replay. The plan arrives already converted into the app's own convention
 * (server/pipeline builds it from a decoded file); this step only resolves names against the
 * current state, atomically, and turns the plan into records.
 *
 * Name clashes follow Blender: an imported object or material whose name is taken gets the first
 * free numeric suffix ("Robot" → "Robot.001", "Robot.001" → "Robot.002"); a material whose name
 * is taken by one with exactly the same values is reused instead. Every rename is in the result.
 */
import { invalid } from "../errors";
import { canonicalJson } from "./canonical-json";
import { meshTriangles } from "./mesh-data";
import type { SceneParams } from "./operations";
import { appMaterials, getScene, sceneObjects } from "./state";
import {
  ids,
  type Change, type ImageRecord, type Keyframe, type LightProps, type MaterialRecord, type MeshRecord, type ObjectRecord,
  type OperationOutcome, type SceneState, type Vec3,
} from "./types";

/** One object to import; `parent` and `material` index earlier objects and the plan's materials. */
export interface ImportObject {
  name: string;
  parent: number | null;
  kind: ObjectRecord["kind"];
  position: Vec3;
  rotation: Vec3;
  scale: Vec3;
  mesh: string | null;
  material: number | null;
  light: LightProps | null;
  keyframes: Keyframe[];
  /** Material slots (indices into the plan's materials) of a mesh with groups. */
  materials?: (number | null)[];
  /** Joints as indices of the plan's objects (any order), inverse bind matrices in the app's axes. */
  skin?: { joints: number[]; inverseBindMatrices: number[] };
  morphWeights?: number[];
  properties?: Record<string, unknown>;
}

/** A material to import; texture `image`s are ids of ImageRecords the plan carries. */
export type ImportMaterial = Omit<MaterialRecord, "type" | "id" | "app">;

/** A converted asset, ready to add: objects in parent-first order, content-addressed meshes and images. */
export interface ImportPlan { objects: ImportObject[]; meshes: MeshRecord[]; materials: ImportMaterial[]; images?: ImageRecord[] }

export interface Rename { kind: "object" | "material"; from: string; to: string }

const MAX_SUFFIX = 999_999;

/** Blender's rule: the name itself if free, else the base name with the first free ".NNN" suffix. */
export function freeName(name: string, taken: (candidate: string) => boolean): string {
  if (!taken(name)) return name;
  const base = name.replace(/\.\d{3,}$/, "");
  for (let k = 1; k <= MAX_SUFFIX; k++) {
    const candidate = `${base}.${String(k).padStart(3, "0")}`;
    if (!taken(candidate)) return candidate;
  }
  throw invalid("NAME_EXHAUSTED", `No free name is left for "${name}".`, { name });
}

/** Same values, every optional field included (canonical JSON: key order does not matter). */
const sameMaterial = (m: MaterialRecord, p: ImportMaterial) => {
  const { type: _type, id: _id, app: _app, name: _n1, ...a } = m;
  const { name: _n2, ...b } = p;
  return canonicalJson(a) === canonicalJson(b);
};

/** Adds an import plan to a scene (the app's active one unless named). */
export function importRecords(state: SceneState, p: SceneParams & { plan: ImportPlan }): OperationOutcome {
  const { plan } = p;
  const scene = getScene(state, p.app, p.scene);
  if (plan.objects.length === 0) throw invalid("EMPTY_ASSET", "The asset holds no objects to import.");
  const changes: Change[] = [];
  const renamed: Rename[] = [];

  const existingMaterials = new Map(appMaterials(state, p.app).map((m) => [m.name, m]));
  const materialNames = plan.materials.map((m) => {
    const name = freeName(m.name, (c) => {
      const old = existingMaterials.get(c);
      return old !== undefined && !sameMaterial(old, m);
    });
    if (name !== m.name) renamed.push({ kind: "material", from: m.name, to: name });
    if (!existingMaterials.has(name)) {
      const record: MaterialRecord = { ...m, type: "material", id: ids.material(p.app, name), app: p.app, name };
      existingMaterials.set(name, record);
      changes.push({ id: record.id, before: null, after: record });
    }
    return name;
  });

  const meshes = new Map(plan.meshes.map((m) => [m.id, m]));
  const usedMeshes = new Set<string>();
  const takenObjects = new Set(sceneObjects(state, scene).map((o) => o.name));
  const names: string[] = [];
  let triangles = 0;
  const objects = plan.objects.map((o, i): ObjectRecord => {
    if (o.parent !== null && !(Number.isInteger(o.parent) && o.parent >= 0 && o.parent < i))
      throw invalid("INVALID_IMPORT", `Imported object ${i} ("${o.name}") names a parent that does not precede it.`);
    if (o.mesh !== null && !meshes.has(o.mesh) && !state.has(o.mesh))
      throw invalid("INVALID_IMPORT", `Imported object "${o.name}" uses a mesh the import does not carry.`);
    const name = freeName(o.name, (c) => takenObjects.has(c));
    takenObjects.add(name);
    names.push(name);
    if (name !== o.name) renamed.push({ kind: "object", from: o.name, to: name });
    if (o.mesh !== null) {
      usedMeshes.add(o.mesh);
      triangles += meshTriangles(meshes.get(o.mesh) ?? (state.get(o.mesh) as MeshRecord));
    }
    return {
      type: "object", id: ids.object(p.app, scene.name, name), app: p.app, scene: scene.name, name, kind: o.kind,
      position: o.position, rotation: o.rotation, scale: o.scale, primitive: null, mesh: o.mesh,
      parent: o.parent === null ? null : names[o.parent], material: o.material === null ? null : materialNames[o.material],
      light: o.light, keyframes: o.keyframes, modifiers: [],
      ...(o.materials ? { materials: o.materials.map((m) => (m === null ? null : materialNames[m])) } : {}),
      ...(o.morphWeights ? { morphWeights: o.morphWeights } : {}),
      ...(o.properties ? { properties: o.properties } : {}),
    };
  });
  // Joints may come after the skinned mesh in the plan, so skins are bound once every name is known.
  plan.objects.forEach((o, i) => {
    if (!o.skin) return;
    if (!o.skin.joints.every((j) => Number.isInteger(j) && j >= 0 && j < names.length) || o.skin.inverseBindMatrices.length !== o.skin.joints.length * 16)
      throw invalid("INVALID_IMPORT", `Imported object "${o.name}" has a skin whose joints are not imported objects.`);
    objects[i].skin = { joints: o.skin.joints.map((j) => names[j]), inverseBindMatrices: o.skin.inverseBindMatrices };
  });
  const images = new Map((plan.images ?? []).map((im) => [im.id, im]));
  const usedImages = new Set<string>();
  for (const m of plan.materials)
    for (const t of Object.values(m.textures ?? {})) {
      if (!images.has(t.image) && !state.has(t.image)) throw invalid("INVALID_IMPORT", `Imported material "${m.name}" uses an image the import does not carry.`);
      usedImages.add(t.image);
    }
  for (const id of usedImages) if (!state.has(id)) changes.unshift({ id, before: null, after: images.get(id)! });
  // Meshes first, then objects parent-first, so replaying the changes in order never leaves a dangling reference.
  for (const id of usedMeshes) if (!state.has(id)) changes.push({ id, before: null, after: meshes.get(id)! });
  for (const o of objects) changes.push({ id: o.id, before: null, after: o });

  const usedMaterials = new Set(objects.flatMap((o) => (o.material ? [o.material] : [])));
  return {
    changes,
    result: {
      app: p.app, scene: scene.name,
      roots: objects.filter((o) => o.parent === null).map((o) => o.name),
      objects: objects.map((o) => o.name),
      renamed,
      counts: { objects: objects.length, meshes: usedMeshes.size, materials: usedMaterials.size, triangles },
    },
  };
}
