/**
 * The editor operations as pure functions of (state, params) → changes + result.
 * They never mutate the state; the caller applies the changes. Params arrive validated
 * (server/tools owns the schemas), with defaults already filled in.
 */
import { meshSummary } from "./mesh-data";
import { invalid, conflict } from "../errors";
import {
  assertNoObject, findObject, getApp, getMaterial, getObject, getScene, newScene, sceneObjects,
} from "./state";
import {
  ids,
  type AppId, type Change, type Color, type ImageRecord, type LightType, type MaterialRecord, type MeshRecord, type ObjectRecord,
  type OperationOutcome, type PrimitiveType, type SceneRecord, type SceneState, type Vec3,
} from "./types";

type Partial3 = Partial<Vec3>;
const vec = (v: Partial3 | undefined, d: number): Vec3 => ({ x: v?.x ?? d, y: v?.y ?? d, z: v?.z ?? d });
const merge = (base: Vec3, v: Partial3 | undefined): Vec3 => ({ x: v?.x ?? base.x, y: v?.y ?? base.y, z: v?.z ?? base.z });

export interface SceneParams { app: AppId; scene?: string }

/**
 * What a creating operation does when its name is taken (DECISIONS: re-runnable recipes):
 * `error` refuses (409), `reuse` returns the existing thing unchanged when it is of the kind
 * asked for, `replace` puts a new one in its place. A replacement is one operation whose changes
 * carry the old record as `before`, so history, rollback and diffs show what it replaced.
 */
export const IF_EXISTS = ["error", "replace", "reuse"] as const;
export type IfExists = (typeof IF_EXISTS)[number];
/** What a creating operation did, reported in its result. */
export type CreateOutcome = "created" | "reused" | "replaced";

interface Creating { if_exists?: IfExists }

/** Creates a scene and makes it the app's active scene (replacing one clears its objects). */
export function createScene(state: SceneState, p: SceneParams & Creating & { name: string }): OperationOutcome {
  const existing = state.get(ids.scene(p.app, p.name)) as SceneRecord | undefined;
  const mode = p.if_exists ?? "error";
  if (existing && mode === "error")
    throw conflict("SCENE_EXISTS", `${p.app} already has a scene named "${p.name}".`, { app: p.app, name: p.name, if_exists: IF_EXISTS });
  const app = getApp(state, p.app);
  const activate: Change[] = app.activeScene === p.name ? [] : [{ id: app.id, before: app, after: { ...app, activeScene: p.name } }];
  const outcome: CreateOutcome = !existing ? "created" : mode === "reuse" ? "reused" : "replaced";
  // Said in the result: a recipe or client that only meant to add a scene learns it switched.
  const result = { app: p.app, scene: p.name, active: true, outcome, switched_from: activate.length ? app.activeScene : null };
  if (existing && mode === "reuse") return { changes: activate, result };
  const cleared = existing ? removeObjects(state, parentsFirst(sceneObjects(state, existing))) : [];
  const scene = newScene(p.app, p.name);
  return { changes: [...cleared, { id: scene.id, before: existing ?? null, after: scene }, ...activate], result };
}

/** Makes an existing scene the app's active scene. */
export function openScene(state: SceneState, p: SceneParams & { name: string }): OperationOutcome {
  const scene = getScene(state, p.app, p.name);
  const app = getApp(state, p.app);
  const changes: Change[] = app.activeScene === scene.name ? [] : [{ id: app.id, before: app, after: { ...app, activeScene: scene.name } }];
  return { changes, result: { app: p.app, scene: scene.name, active: true, switched_from: changes.length ? app.activeScene : null } };
}

type Placed = SceneParams & Creating & { name: string; position?: Partial3; rotation?: Partial3; scale?: Partial3; parent?: string };

function baseObject(p: Placed, state: SceneState) {
  const scene = getScene(state, p.app, p.scene);
  const existing = findObject(state, scene, p.name);
  if (!existing || (p.if_exists ?? "error") === "error") assertNoObject(state, scene, p.name);
  if (p.parent !== undefined) {
    getObject(state, scene, p.parent);
    // A replacement keeps the old object's children, so its parent must not be one of them.
    if (existing && isSelfOrDescendant(state, scene, p.parent, p.name))
      throw invalid("PARENT_CYCLE", `"${p.parent}" is "${p.name}" or one of its children, so it cannot be its parent.`, { field: "parent" });
  }
  return {
    scene,
    existing,
    record: {
      type: "object" as const, id: ids.object(p.app, scene.name, p.name), app: p.app, scene: scene.name, name: p.name,
      position: vec(p.position, 0), rotation: vec(p.rotation, 0), scale: vec(p.scale, 1),
      parent: p.parent ?? null, material: null, light: null, mesh: null, primitive: null,
      keyframes: [], modifiers: [],
    },
  };
}

/** Creates a primitive mesh object or an Empty. */
export function createGameObject(state: SceneState, p: Placed & { type: PrimitiveType | "Empty" }): OperationOutcome {
  const { scene, record, existing } = baseObject(p, state);
  const obj: ObjectRecord = p.type === "Empty"
    ? { ...record, kind: "empty" }
    : { ...record, kind: "mesh", primitive: p.type };
  return placeObject(state, scene, obj, existing, p.if_exists, p.type);
}

/** Creates a light object. */
export function createLight(
  state: SceneState,
  p: Placed & { type: LightType; intensity: number; color: Color; range: number; spot_angle: number },
): OperationOutcome {
  const { scene, record, existing } = baseObject(p, state);
  const obj: ObjectRecord = {
    ...record, kind: "light",
    light: { type: p.type, intensity: p.intensity, color: p.color, range: p.range, spotAngle: p.spot_angle },
  };
  return placeObject(state, scene, obj, existing, p.if_exists, p.type);
}

/**
 * The changes that put `obj` into the scene: a plain creation, or, when an object of that name
 * exists, the existing one (reuse, if it is of the type asked for) or `obj` in its place (replace:
 * one change from the old record to the new one; children stay attached by name, and imported
 * geometry nobody uses any more goes with it).
 */
function placeObject(state: SceneState, scene: SceneRecord, obj: ObjectRecord, existing: ObjectRecord | undefined, mode: IfExists | undefined, type: string): OperationOutcome {
  const placed = (o: ObjectRecord, outcome: CreateOutcome) => ({ object: describeObject(o), scene: scene.name, app: scene.app, outcome });
  if (!existing) return { changes: [{ id: obj.id, before: null, after: obj }], result: placed(obj, "created") };
  if (mode === "reuse") {
    const has = describeObject(existing).type;
    if (has !== type)
      throw conflict("NAME_CONFLICT", `Scene "${scene.name}" of ${scene.app} already has an object named "${obj.name}", and it is ${article(has)}, not ${article(type)}; if_exists: reuse only reuses an object of the same type (replace puts a new one in its place).`, {
        app: scene.app, scene: scene.name, name: obj.name, existing_type: has, requested_type: type,
      });
    return { changes: [], result: placed(existing, "reused") };
  }
  const changes: Change[] = [{ id: obj.id, before: existing, after: obj }];
  for (const mesh of unusedMeshes(state, [existing])) changes.push({ id: mesh.id, before: mesh, after: null });
  return { changes, result: placed(obj, "replaced") };
}

const article = (type: string) => `${/^[AEIOU]/.test(type) ? "an" : "a"} ${type}`;

/** Whether `name` is `ancestor` or below it in the scene's hierarchy. */
function isSelfOrDescendant(state: SceneState, scene: SceneRecord, name: string, ancestor: string): boolean {
  const seen = new Set<string>();
  for (let at: string | null = name; at !== null && !seen.has(at); at = findObject(state, scene, at)?.parent ?? null) {
    if (at === ancestor) return true;
    seen.add(at);
  }
  return false;
}

/** Sets the scene camera; omitted fields keep their value. */
export function setCamera(state: SceneState, p: SceneParams & { position?: Partial3; rotation?: Partial3; fov?: number }): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const camera = {
    position: merge(scene.camera.position, p.position),
    rotation: merge(scene.camera.rotation, p.rotation),
    fov: p.fov ?? scene.camera.fov,
  };
  return {
    changes: [{ id: scene.id, before: scene, after: { ...scene, camera } }],
    result: { app: p.app, scene: scene.name, camera },
  };
}

/** Creates a material of the app. */
export function createMaterial(
  state: SceneState,
  p: Creating & {
    app: AppId; name: string; color: Color; metallic: number; roughness: number;
    /** Texture slots, their `image` ids among `images` (read by the tool) or already in the state. */
    textures?: MaterialRecord["textures"]; images?: ImageRecord[];
    emissive?: MaterialRecord["emissive"]; alpha_mode?: MaterialRecord["alphaMode"]; alpha_cutoff?: number; double_sided?: boolean;
  },
): OperationOutcome {
  const id = ids.material(p.app, p.name);
  const existing = state.get(id) as MaterialRecord | undefined;
  const mode = p.if_exists ?? "error";
  if (existing && mode === "error")
    throw conflict("MATERIAL_EXISTS", `${p.app} already has a material named "${p.name}".`, { app: p.app, name: p.name, if_exists: IF_EXISTS });
  if (existing && mode === "reuse") return { changes: [], result: { material: describeMaterial(existing), app: p.app, outcome: "reused" } };
  // Objects refer to materials by name, so a replaced material stays on the objects that had it.
  const material: MaterialRecord = { type: "material", id, app: p.app, name: p.name, color: p.color, metallic: p.metallic, roughness: p.roughness };
  if (p.textures && Object.keys(p.textures).length) material.textures = p.textures;
  if (p.emissive) material.emissive = p.emissive;
  if (p.alpha_mode) material.alphaMode = p.alpha_mode;
  if (p.alpha_cutoff !== undefined) material.alphaCutoff = p.alpha_cutoff;
  if (p.double_sided) material.doubleSided = true;
  // New images first, so replaying the changes in order never leaves the material's reference dangling.
  const images = new Map((p.images ?? []).map((im) => [im.id, im]));
  const imageChanges: Change[] = [];
  for (const t of Object.values(material.textures ?? {})) {
    if (state.has(t.image) || imageChanges.some((c) => c.id === t.image)) continue;
    const image = images.get(t.image);
    if (!image) throw invalid("INVALID_PARAMS", `Texture image ${t.image} is neither given nor stored.`, { field: "textures" });
    imageChanges.push({ id: image.id, before: null, after: image });
  }
  return { changes: [...imageChanges, { id, before: existing ?? null, after: material }], result: { material: describeMaterial(material), app: p.app, outcome: existing ? "replaced" : "created" } };
}

/** Assigns a material to a mesh object. */
export function setMaterial(state: SceneState, p: SceneParams & { target: string; material: string }): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const obj = getObject(state, scene, p.target);
  const material = getMaterial(state, p.app, p.material);
  if (obj.kind !== "mesh")
    throw invalid("NOT_A_MESH", `"${obj.name}" is ${obj.kind === "light" ? "a light" : "an Empty"}; only mesh objects take materials.`, { field: "target" });
  return {
    changes: [{ id: obj.id, before: obj, after: { ...obj, material: material.name } }],
    result: { app: p.app, scene: scene.name, target: obj.name, material: material.name },
  };
}

/** Moves, rotates or scales an object; omitted components keep their value. */
export function setTransform(
  state: SceneState,
  p: SceneParams & { target: string; position?: Partial3; rotation?: Partial3; scale?: Partial3 },
): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const obj = getObject(state, scene, p.target);
  const after = { ...obj, position: merge(obj.position, p.position), rotation: merge(obj.rotation, p.rotation), scale: merge(obj.scale, p.scale) };
  return { changes: [{ id: obj.id, before: obj, after }], result: { object: describeObject(after), scene: scene.name, app: p.app } };
}

/** Deletes an object and, recursively, its children. */
export function deleteObject(state: SceneState, p: SceneParams & { target: string }): OperationOutcome {
  const scene = getScene(state, p.app, p.scene);
  const doomed = parentsFirst(sceneObjects(state, scene), getObject(state, scene, p.target));
  return { changes: removeObjects(state, doomed), result: { app: p.app, scene: scene.name, deleted: doomed.map((o) => o.name) } };
}

/** `root` and its descendants among `all` (every root of `all` when none is given), parents first. */
function parentsFirst(all: ObjectRecord[], root?: ObjectRecord): ObjectRecord[] {
  const names = new Set(all.map((o) => o.name));
  const out: ObjectRecord[] = [];
  const visit = (o: ObjectRecord) => {
    out.push(o);
    for (const c of all) if (c.parent === o.name) visit(c);
  };
  if (root) visit(root);
  else for (const o of all) if (o.parent === null || !names.has(o.parent)) visit(o);
  return out;
}

/** The changes that remove `doomed` (parents before children), children first. */
function removeObjects(state: SceneState, doomed: ObjectRecord[]): Change[] {
  // Children first, so replaying the changes never leaves an orphan behind.
  const changes = [...doomed].reverse().map((o): Change => ({ id: o.id, before: o, after: null }));
  // Imported geometry goes with its last user, after it (undo restores it first).
  for (const mesh of unusedMeshes(state, doomed)) changes.push({ id: mesh.id, before: mesh, after: null });
  return changes;
}

/**
 * Mesh records used by `doomed` and by no other object of any app or scene. Meshes are shared by
 * content, so this must look at every object; it only runs when a deleted object has one.
 */
function unusedMeshes(state: SceneState, doomed: ObjectRecord[]): MeshRecord[] {
  const candidates = new Set(doomed.flatMap((o) => (o.mesh ? [o.mesh] : [])));
  if (candidates.size === 0) return [];
  const leaving = new Set(doomed.map((o) => o.id));
  for (const r of state.values()) if (r.type === "object" && r.mesh && !leaving.has(r.id)) candidates.delete(r.mesh);
  return [...candidates].flatMap((id) => {
    const mesh = state.get(id);
    return mesh?.type === "mesh" ? [mesh] : [];
  });
}

/** The public shape of an object in results. */
export function describeObject(o: ObjectRecord) {
  const type = o.kind === "light" ? o.light!.type : o.kind === "empty" ? "Empty" : (o.primitive ?? "Mesh");
  return {
    name: o.name, kind: o.kind, type, parent: o.parent, position: o.position, rotation: o.rotation, scale: o.scale,
    material: o.material, ...(o.light ? { light: o.light } : {}),
    ...(o.keyframes.length ? { keyframes: o.keyframes } : {}), ...(o.modifiers.length ? { modifiers: o.modifiers } : {}),
  };
}

/** The public shape of a material in results (optional fields only when set). */
export function describeMaterial(m: MaterialRecord) {
  return {
    name: m.name, color: m.color, metallic: m.metallic, roughness: m.roughness,
    ...(m.textures && Object.keys(m.textures).length ? { textures: m.textures } : {}),
    ...(m.emissive ? { emissive: m.emissive } : {}),
    ...(m.alphaMode ? { alpha_mode: m.alphaMode } : {}),
    ...(m.alphaCutoff !== undefined ? { alpha_cutoff: m.alphaCutoff } : {}),
    ...(m.doubleSided ? { double_sided: true } : {}),
    ...(m.properties ? { properties: m.properties } : {}),
  };
}

/**
 * What an imported mesh object carries beyond geometry (UV sets, colours, material slots, skin,
 * morph targets, custom properties), for get_scene and list_objects; undefined for objects
 * without any of it (primitives, Empties, lights, plain imported meshes).
 */
export function describeAssetData(state: SceneState, o: ObjectRecord) {
  const mesh = o.mesh ? state.get(o.mesh) : undefined;
  const summary = mesh?.type === "mesh" ? meshSummary(mesh) : undefined;
  const out = {
    ...(summary && summary.uv_sets ? { uv_sets: summary.uv_sets } : {}),
    ...(summary?.vertex_colors ? { vertex_colors: true } : {}),
    ...(summary && summary.material_slots > 1 ? { material_slots: o.materials ?? [o.material] } : {}),
    ...(o.skin ? { skin: { joints: o.skin.joints } } : {}),
    ...(summary?.morph_targets.length ? { morph_targets: summary.morph_targets.map((t, k) => ({ ...t, weight: o.morphWeights?.[k] ?? t.default_weight })) } : {}),
    ...(o.properties ? { properties: o.properties } : {}),
  };
  return Object.keys(out).length ? out : undefined;
}
