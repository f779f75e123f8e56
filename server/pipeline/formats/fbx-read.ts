/**
 * FBX reader: three's FBXLoader (binary and ASCII FBX) converted into the interchange model. In
 * binary files the mesh geometry is read by fbx-geometry.ts instead, and FBXLoader gets the file
 * with placeholders in its place (FBXLoader takes seconds over a million triangles), and so are
 * UV sets, colours, material indices (fbx-geometry.ts), textures (fbx-textures.ts), custom
 * properties (fbx-properties.ts), skins and morph targets (fbx-deformers.ts); ASCII files keep
 * FBXLoader's mesh and first material only.
 *
 * FBXLoader returns a three.js scene in the file's own units and axis conventions and applies a
 * few three-specific reinterpretations; this module undoes each of them (see the comments at each
 * step) so a file written by fbx.ts reads back as the scene that was written.
 */
import {
  ColorManagement,
  LoadingManager,
  Matrix4,
  Object3D,
  PropertyBinding,
  Quaternion,
  Texture,
  type AnimationClip,
  type BufferGeometry,
  type Group,
  type Loader,
  type Material,
  type Mesh,
  type MeshPhongMaterial,
  type PerspectiveCamera,
  type PointLight,
  type SpotLight,
} from "three";
import { FBXLoader } from "three/examples/jsm/loaders/FBXLoader.js";
import { childrenNamed, isBinaryFbx, readFbxBinary, text, writeFbxBinary, type FbxNode, type FbxProperty } from "./fbx-binary";
import { geometricTransform, objectName, readGeometry, stubGeometry, transformGeometry } from "./fbx-geometry";
import { takeTextures } from "./fbx-textures";
import { readUserProperties } from "./fbx-properties";
import { isDeformerObject, isMeshHolder, readBlendShapes, readSkin, readWeightKeys, type FbxGraph, type ReadSkin } from "./fbx-deformers";
import { CAMERA_FIX, FBX_DEFAULT_MATERIAL, FBX_EMPTY_SLOT, FBX_FILM_HEIGHT_MM, FBX_UNIT_SCALE, LIGHT_FIX, captureWarnings, refixKey, refixMatrix } from "./fbx-conventions";
import { computeNormals, decomposeTrs, sequentialIndices, type DecodeResult, type InterchangeAnimation, type InterchangeMesh, type InterchangeNode, type InterchangeScene } from "./interchange";

/** three.js track property → interchange animation channel. */
const TRACK_CHANNELS: Record<string, "translations" | "rotations" | "scales" | undefined> = { position: "translations", quaternion: "rotations", scale: "scales" };

type FbxObject = Object3D & { ID?: number; isLight?: boolean; isCamera?: boolean; isMesh?: boolean };

/**
 * Parses FBX bytes with three's FBXLoader into its raw three.js scene (file units and axes; loader
 * messages are appended to `warnings`). decodeFbx builds on it; tests use it to inspect files.
 *
 * Runs FBXLoader in Node with the two environment gaps it has there patched for the duration of
 * the (synchronous) parse only:
 * - `window`: createCamera reads window.innerWidth/innerHeight (before looking at the file's
 *   aspect), so a camera would throw. A plain object with those two fields is all it touches.
 * - textures: FBXLoader loads images through TextureLoader, which needs a DOM. A loading-manager
 *   handler for every extension hands back empty textures; the reader warns about any map.
 * It also turns off three's colour management for the parse: FBXLoader would reinterpret file
 * colours as sRGB, but FBX writers (Blender, ours) store linear values, which we want verbatim.
 */
export function loadFbx(bytes: Uint8Array, warnings: string[]): Group {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const manager = new LoadingManager();
  const noImages = { path: "", setPath(p: string) { this.path = p; return this; }, load: () => new Texture() };
  manager.addHandler(/./, noImages as unknown as Loader);
  const g = globalThis as { window?: unknown };
  const shim = g.window === undefined;
  if (shim) g.window = { innerWidth: 1920, innerHeight: 1080 };
  const colorManagement = ColorManagement.enabled;
  ColorManagement.enabled = false;
  try {
    return captureWarnings(warnings, "fbx: loader: ", () => new FBXLoader(manager).parse(buffer, ""));
  } finally {
    ColorManagement.enabled = colorManagement;
    if (shim) delete g.window;
  }
}

/** Reads a binary or ASCII FBX into the interchange model (metres, Y up, glTF axis conventions). */
export async function decodeFbx(files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const bytes = files.get(mainName);
  if (!bytes) throw new Error(`fbx: ${mainName} not among the given files`);
  const warnings: string[] = [];
  const warn = (msg: string) => void (warnings.includes(msg) || warnings.push(msg));
  const separated = isBinaryFbx(bytes) ? separateGeometry(bytes, warn) : null;
  const loaded = loadFbx(separated?.file ?? bytes, warnings) as Group & FbxObject;
  // FBXLoader keeps coordinates in file units; UnitScaleFactor says how many cm one unit is.
  const toMetres = (loaded.userData.unitScaleFactor ?? 1) / FBX_UNIT_SCALE;
  const out: InterchangeScene = { nodes: [], meshes: [], materials: [], animations: [] };
  // Per node: its own camera/light fix and the fix of what it hangs under (parent or wrapper).
  const fixes: (Quaternion | null)[] = [];
  const parentFixes: (Quaternion | null)[] = [];
  const objects: FbxObject[] = [];
  /** Mesh index by what identifies the geometry: FBX geometry id (+ model id when baked), or FBXLoader's object. */
  const geometryIndex = new Map<unknown, number>();
  const materialIndex = new Map<Material, number>();

  const imageIndex = new Map<bigint, number>();
  /** Skinned mesh nodes; their skins are made once every joint model has its node. */
  const skinned: { node: number; key: unknown; skin: ReadSkin }[] = [];
  /** Morph weight keys of mesh nodes (read with their geometry's blend shapes). */
  const weightAnimations: InterchangeAnimation[] = [];
  /** Interchange index of a loader material (FBX id `fbxId`; `uvSetNames` of the mesh that first uses it), or undefined. */
  const material = (m: Material | undefined, fbxId?: bigint, uvSetNames: string[] = []): number | undefined => {
    // Invented by FBXLoader (the mesh had none), or the writer's placeholder for an empty slot.
    if (!m || m.name === FBX_DEFAULT_MATERIAL || m.name === FBX_EMPTY_SLOT) return undefined;
    let k = materialIndex.get(m);
    if (k === undefined) {
      const phong = m as MeshPhongMaterial;
      // Inverse of the exporter's (and Blender's) mapping: Shininess = ((1 - roughness) * 10)², ReflectionFactor = metallic.
      const roughness = phong.isMeshPhongMaterial ? Math.min(1, Math.max(0, 1 - Math.sqrt(Math.max(0, phong.shininess)) / 10)) : 1;
      const metallic = phong.isMeshPhongMaterial ? Math.min(1, Math.max(0, phong.reflectivity)) : 0;
      k = out.materials.push({ name: m.name, color: [...phong.color.toArray() as [number, number, number], m.opacity], metallic, roughness }) - 1;
      materialIndex.set(m, k);
      for (const map of ["map", "normalMap", "bumpMap", "specularMap", "emissiveMap", "alphaMap", "displacementMap", "aoMap", "envMap"] as const)
        if ((phong as unknown as Record<string, unknown>)[map]) warn(`fbx: material "${m.name}": texture ${map} dropped`);
      const extras = fbxId === undefined ? undefined : separated?.materialExtras(fbxId, m.name);
      if (extras) out.materials[k].extras = extras;
      if (phong.emissive && phong.emissive.getHex() !== 0) out.materials[k].emissive = phong.emissive.toArray() as [number, number, number];
      for (const t of (fbxId !== undefined && separated?.textures.byMaterial.get(fbxId)) || []) {
        let image = imageIndex.get(t.video);
        if (image === undefined) imageIndex.set(t.video, (image = (out.images ??= []).push(separated!.textures.images.get(t.video)!) - 1));
        const uv = Math.max(0, uvSetNames.indexOf(t.uvSet)) as 0 | 1;
        (out.materials[k].textures ??= {})[t.slot] = { image, uv, ...t.transform };
      }
    }
    return k;
  };

  const visit = (obj: FbxObject, parent: number | null, parentFix: Quaternion | null) => {
    if (obj.ID === undefined) {
      // Objects FBXLoader adds itself: light look-at targets and the GlobalSettings ambient light.
      if ((obj as { isAmbientLight?: boolean }).isAmbientLight) warn("fbx: ambient colour dropped");
      return;
    }
    const name = (obj.userData.originalName as string | undefined) ?? obj.name;
    const own = obj.isCamera ? CAMERA_FIX : obj.isLight ? LIGHT_FIX : null;
    obj.updateMatrix();
    const m = obj.matrix.clone();
    // FBXLoader applies the file transform on top of the constructor's default position, which is
    // DEFAULT_UP (0,1,0) for directional and spot lights; strip that offset again.
    if ((obj as SpotLight).isSpotLight || obj.type === "DirectionalLight") m.multiply(new Matrix4().makeTranslation(Object3D.DEFAULT_UP.clone().negate()));
    // Units are applied as a scale of the roots, as Blender's importer does: files that compensate
    // with a root scale (Blender writes centimetre files with roots scaled 100) then read back
    // with scale 1 and untouched child transforms, instead of scale 100 and children at 1/100.
    if (parent === null && toMetres !== 1) m.premultiply(new Matrix4().makeScale(toMetres, toMetres, toMetres));
    // Kiln's writer moves a skinned mesh whose joints hang below it to a marked identity child
    // (see fbx.ts): give it back to the parent node.
    const holder = obj.isMesh && parent !== null && !obj.children.length && m.equals(new Matrix4()) && separated?.isMeshHolder(obj.ID);
    let node: InterchangeNode, self: number;
    if (holder && out.nodes[parent].mesh === undefined) (node = out.nodes[parent]), (self = parent);
    else {
      node = { name, parent, ...decomposeTrs(refixMatrix(m, own && own.clone().invert(), parentFix && parentFix.clone().invert())) };
      const extras = separated?.modelExtras(obj.ID, name);
      if (extras) node.extras = extras;
      self = out.nodes.push(node) - 1;
      fixes.push(own);
      parentFixes.push(parentFix);
      objects.push(obj);
    }

    if (obj.isMesh) {
      const mesh = obj as Mesh;
      if ((mesh as { isSkinnedMesh?: boolean }).isSkinnedMesh) warn(`fbx: mesh "${name}": skinning dropped`);
      const found = separated ? separated.meshOf(obj.ID, name) : { key: mesh.geometry, slots: [0], uvSetNames: [] as string[], skin: undefined, weightKeys: undefined, load: () => loaderMesh(mesh.geometry, name, warn) };
      if (found) {
        let k = geometryIndex.get(found.key);
        if (k === undefined) geometryIndex.set(found.key, (k = out.meshes.push(found.load()) - 1));
        node.mesh = k;
        if (found.skin) skinned.push({ node: self, key: found.key, skin: found.skin });
        if (found.weightKeys) weightAnimations.push({ node: self, ...found.weightKeys });
      } else warn(`fbx: mesh "${name}": its geometry is not a polygon mesh; dropped`);
      // Slots: the model's materials in connection order (FBXLoader's array), indexed by the
      // geometry's material layer; ASCII files (no layer read) keep the first.
      const mats = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
      const ids = separated?.materialsOf(obj.ID) ?? [];
      const slots = found?.slots ?? [0];
      if (!separated && new Set(mats).size > 1) warn(`fbx: mesh "${name}": several materials; only the first kept`);
      const slotMaterial = (s: number) => (s >= 0 && s < mats.length ? material(mats[s], ids[s], found?.uvSetNames) ?? null : null);
      if (node.mesh !== undefined && out.meshes[node.mesh].groups) node.materials = slots.map(slotMaterial);
      else {
        const mi = slotMaterial(slots[0]);
        if (mi !== null) node.material = mi;
      }
    } else if ((obj as PerspectiveCamera).isPerspectiveCamera) {
      const cam = obj as PerspectiveCamera;
      // FBXLoader divides NearPlane/FarPlane by 1000 (it assumes millimetres); undo, then to metres.
      // Its fov comes from FocalLength on a 35 mm gauge; recompute it for the FBX film back.
      const fovYDeg = (2 * Math.atan(FBX_FILM_HEIGHT_MM / 2 / cam.getFocalLength()) * 180) / Math.PI;
      node.camera = { fovYDeg, near: cam.near * 1000 * toMetres, far: cam.far * 1000 * toMetres };
    } else if (obj.isLight) {
      const light = obj as PointLight & Partial<SpotLight>;
      const type = light.isSpotLight ? "spot" : obj.type === "DirectionalLight" ? "directional" : "point";
      node.light = { type, color: light.color.toArray() as [number, number, number], intensity: light.intensity };
      if (type !== "directional" && light.distance > 0) node.light.range = light.distance * toMetres;
      if (type === "spot") node.light.spotAngleDeg = (light.angle! * 90) / Math.PI; // OuterAngle is the full cone
      if (light.penumbra) warn(`fbx: light "${name}": inner cone angle dropped`);
      if (light.target?.parent) warn(`fbx: light "${name}": look-at target dropped (direction taken from its rotation)`);
    }
    for (const child of obj.children) visit(child as FbxObject, self, own);
  };
  // FBXLoader returns a wrapper group, except when the file has a single root Null, which it returns
  // directly. A wrapper only carries the Z-up correction rotation, applied to the roots like a parent.
  if (loaded.ID !== undefined) visit(loaded, null, null);
  else for (const child of loaded.children) visit(child as FbxObject, null, loaded.quaternion.clone());

  // One skin per geometry (as placed): its joints are the clusters' models, as nodes.
  const nodeOfModel = new Map(objects.map((o, i) => [o.ID, i]));
  const skinIndex = new Map<unknown, number>();
  for (const { node, key, skin } of skinned) {
    const joints = skin.jointModels.map((m) => nodeOfModel.get(m));
    if (joints.some((j) => j === undefined)) {
      warn(`fbx: mesh "${out.nodes[node].name}": a joint of its skin is not a model of the scene; skin dropped`);
      const mesh = out.meshes[out.nodes[node].mesh!];
      delete mesh.joints, delete mesh.weights;
      continue;
    }
    let s = skinIndex.get(key);
    if (s === undefined) skinIndex.set(key, (s = (out.skins ??= []).push({ name: skin.name, joints: joints as number[], inverseBindMatrices: skin.inverseBindMatrices }) - 1));
    out.nodes[node].skin = s;
  }
  out.animations = [...decodeClips(loaded.animations, objects, fixes, parentFixes, out.nodes.map((n) => (n.parent === null ? toMetres : 1)), warn), ...weightAnimations];
  return { scene: out, warnings };
}

/** A mesh as FBXLoader built it (the ASCII FBX path). */
function loaderMesh(geo: BufferGeometry, name: string, warn: (m: string) => void): InterchangeMesh {
  for (const attr of Object.keys(geo.attributes)) if (attr !== "position" && attr !== "normal") warn(`fbx: mesh "${geo.name || name}": attribute ${attr} dropped`);
  if (Object.keys(geo.morphAttributes).length) warn(`fbx: mesh "${geo.name || name}": morph targets dropped`);
  const positions = new Float32Array(geo.getAttribute("position").array as ArrayLike<number>);
  const indices = geo.index ? Uint32Array.from(geo.index.array) : sequentialIndices(positions.length / 3);
  const normalAttr = geo.getAttribute("normal");
  if (!normalAttr) warn(`fbx: mesh "${geo.name || name}": had no normals; smooth normals computed`);
  const normals = normalAttr ? new Float32Array(normalAttr.array as ArrayLike<number>) : computeNormals(positions, indices);
  return { name: geo.name || name, positions, normals, indices };
}

/**
 * An int64 id as FBXLoader's BinaryReader.getInt64 computes it (its negative branch masks with
 * `& 0xFFFFFFFF`, which JavaScript evaluates to a signed int32, so some negative ids come out
 * as other numbers). Models are matched to FBXLoader's objects by these numbers.
 */
export function loaderId(p: FbxProperty | undefined): number {
  if (p?.type !== "L") return Number(p?.value);
  let high = Number(BigInt.asUintN(64, p.value) >> 32n), low = Number(BigInt.asUintN(32, p.value));
  if (high & 0x80000000) {
    high = ~high & 0xffffffff;
    low = ~low & 0xffffffff;
    if (low === 0xffffffff) high = (high + 1) & 0xffffffff;
    low = (low + 1) & 0xffffffff;
    return -(high * 0x100000000 + low);
  }
  return high * 0x100000000 + low;
}

/**
 * Takes the mesh geometry out of a binary FBX: returns the file with every polygon mesh replaced
 * by a placeholder (for FBXLoader) and, per model id as FBXLoader reports it, the real mesh, with
 * the model's geometric transform baked in as FBXLoader would. Skins and blend shapes (with their
 * weight curves) index into the real vertices: they are read here (fbx-deformers.ts) and go too,
 * with every connection to them.
 */
function separateGeometry(bytes: Uint8Array, warn: (m: string) => void) {
  const doc = readFbxBinary(bytes);
  const top = (name: string) => doc.nodes.find((n) => n.name === name);
  const id = (n: FbxNode) => loaderId(n.properties[0]);
  const objects = top("Objects"), connections = top("Connections");
  const geometries = new Map<number, FbxNode>(), models = new Map<number, FbxNode>(), parents = new Map<number, number[]>();
  for (const n of objects?.children ?? []) {
    if (n.name === "Geometry" && text(n.properties[2]) === "Mesh") geometries.set(id(n), n);
    if (n.name === "Model") models.set(id(n), n);
  }
  const links = childrenNamed(connections, "C").map((c) => ({ c, from: loaderId(c.properties[1]), to: loaderId(c.properties[2]) }));
  for (const { c, from, to } of links) if (text(c.properties[0]) === "OO") parents.get(from)?.push(to) ?? parents.set(from, [to]);
  const geometryOf = new Map<number, number>();
  for (const [g] of geometries) for (const model of parents.get(g) ?? []) if (models.has(model)) geometryOf.set(model, g);

  // Only geometry some model uses is read (FBXLoader skips the rest too); all of it is emptied.
  const used = new Set(geometryOf.values());
  // Skins and blend shapes index the real vertices: read from the object graph (fbx-deformers.ts).
  const byId = new Map((objects?.children ?? []).map((n) => [id(n), n]));
  const childrenOf = new Map<number, number[]>();
  for (const { c, from, to } of links) if (text(c.properties[0]) === "OO") childrenOf.get(to)?.push(from) ?? childrenOf.set(to, [from]);
  const graph: FbxGraph = { objects: byId, childrenOf: (n) => childrenOf.get(n) ?? [] };
  // Curves animating a property: what is connected to an object through property `name` (OP).
  const byProperty = (to: number, name: string) => links.filter((l) => l.to === to && text(l.c.properties[0]) === "OP" && text(l.c.properties[3]) === name).map((l) => l.from);
  const weightCurves = (channel: number) => byProperty(channel, "DeformPercent").flatMap((n) => byProperty(n, "d|DeformPercent"));
  const meshes = new Map<number, { mesh: InterchangeMesh; slots: number[]; uvSetNames: string[]; skin?: ReadSkin; weightKeys?: { times: number[]; weights: number[][] } }>();
  for (const [g, node] of geometries) {
    if (used.has(g)) {
      const name = objectName(node);
      const read = readGeometry(node, name);
      read.warnings.forEach(warn);
      const extras = readUserProperties(node, `mesh "${name}"`, warn);
      const outCount = read.mesh.positions.length / 3;
      const skin = readSkin(graph, g, name, read.controlPoints, outCount, read.controlPoint, warn);
      const shapes = readBlendShapes(graph, g, name, read.controlPoints, outCount, read.controlPoint, warn);
      const mesh: InterchangeMesh = { name, ...read.mesh, ...(extras ? { extras } : {}) };
      if (skin) (mesh.joints = skin.joints), (mesh.weights = skin.weights);
      if (shapes) (mesh.morphTargets = shapes.targets), (mesh.morphWeights = shapes.weights);
      const weightKeys = shapes && readWeightKeys(byId, shapes.channels, shapes.weights, weightCurves, name, warn);
      meshes.set(g, { mesh, slots: read.materialSlots, uvSetNames: read.uvSetNames, ...(skin ? { skin } : {}), ...(weightKeys ? { weightKeys } : {}) });
    }
    stubGeometry(node);
  }
  if (objects) {
    const removed = new Set(objects.children.filter(isDeformerObject).map(id));
    // Their weight curves too (read above), which FBXLoader would look for morph targets with.
    for (const d of [...removed]) for (const n of byProperty(d, "DeformPercent")) for (const c of [n, ...byProperty(n, "d|DeformPercent")]) removed.add(c);
    objects.children = objects.children.filter((n) => !removed.has(id(n)));
    const dangling = new Set(links.filter((l) => removed.has(l.from) || removed.has(l.to)).map((l) => l.c));
    if (connections) connections.children = connections.children.filter((c) => !dangling.has(c));
  }
  // A model's materials in connection order (FBXLoader's order, and the order slots count in).
  const materialIds = new Map<bigint, FbxNode>();
  for (const n of objects?.children ?? []) if (n.name === "Material" && n.properties[0]?.type === "L") materialIds.set(n.properties[0].value, n);
  const modelMaterials = new Map<number, bigint[]>();
  for (const c of childrenNamed(connections, "C")) {
    const from = c.properties[1];
    if (text(c.properties[0]) !== "OO" || from?.type !== "L" || !materialIds.has(from.value)) continue;
    const to = loaderId(c.properties[2]);
    modelMaterials.set(to, [...(modelMaterials.get(to) ?? []), from.value]);
  }
  const textures = takeTextures(doc, warn);
  return {
    // Read straight back by FBXLoader, so not worth compressing.
    file: writeFbxBinary(doc, { compress: false }),
    textures,
    /** Whether a model (by FBXLoader's ID) holds its parent node's skinned mesh (fbx-deformers.ts). */
    isMeshHolder: (model: number) => isMeshHolder(models.get(model)),
    /** Custom properties of a model (by FBXLoader's ID) or a material (by FBX id). */
    modelExtras: (model: number | undefined, name: string) => (model === undefined ? undefined : readUserProperties(models.get(model), `node "${name}"`, warn)),
    materialExtras: (material: bigint, name: string) => readUserProperties(materialIds.get(material), `material "${name}"`, warn),
    /** FBX ids of a model's materials (by FBXLoader's ID), in slot order. */
    materialsOf: (model: number | undefined) => (model === undefined ? [] : modelMaterials.get(model) ?? []),
    /**
     * The mesh of a model (by FBXLoader's ID), keyed so models with the same geometry and
     * transform share it, with the geometry's skin (inverse bind matrices past the geometric
     * transform G, which the mesh then has baked in: IBM · G⁻¹).
     */
    meshOf(model: number | undefined, modelName: string) {
      const g = model === undefined ? undefined : geometryOf.get(model);
      if (g === undefined) return undefined;
      const found = meshes.get(g)!;
      const mesh = { ...found.mesh, name: found.mesh.name || modelName };
      const transform = geometricTransform(models.get(model!)!);
      const { slots, uvSetNames } = found;
      const weightKeys = found.weightKeys;
      if (!transform) return { key: g, slots, uvSetNames, skin: found.skin, weightKeys, load: () => mesh };
      const inverse = transform.clone().invert();
      const skin = found.skin && { ...found.skin, inverseBindMatrices: Float32Array.from({ length: found.skin.inverseBindMatrices.length }, (_, k) => new Matrix4().fromArray(found.skin!.inverseBindMatrices, k - (k % 16)).multiply(inverse).elements[k % 16]) };
      return { key: `${g}/${transform.elements.join(",")}`, slots, uvSetNames, skin, weightKeys, load: () => ({ ...mesh, name: mesh.name, ...transformGeometry(mesh, transform) }) };
    },
  };
}

/** Converts FBXLoader clips (tracks named `<sanitised model name>.<property>`) to interchange keys. */
function decodeClips(
  clips: AnimationClip[],
  objects: FbxObject[],
  fixes: (Quaternion | null)[],
  parentFixes: (Quaternion | null)[],
  /** Per node, the unit factor its translation and scale keys take (roots only, see visit). */
  unitScale: number[],
  warn: (m: string) => void,
): InterchangeAnimation[] {
  const byName = new Map<string, number>();
  objects.forEach((o, i) => (byName.has(o.name) ? warn(`fbx: several models named "${o.name}"; animation bound to the first`) : byName.set(o.name, i)));
  const out: InterchangeAnimation[] = [];
  for (const clip of clips) {
    const groups = new Map<string, InterchangeAnimation>();
    for (const track of clip.tracks) {
      const { nodeName, propertyName } = PropertyBinding.parseTrackName(track.name);
      const node = byName.get(nodeName);
      const channel = TRACK_CHANNELS[propertyName];
      if (node === undefined || !channel) {
        warn(`fbx: animation "${clip.name}": track ${track.name} dropped`);
        continue;
      }
      const times = Array.from(track.times);
      const key = `${node}/${times.join(",")}`; // channels of one node sharing key times form one entry
      let a = groups.get(key);
      if (!a) groups.set(key, (a = { node, times }));
      const size = channel === "rotations" ? 4 : 3;
      const scale = channel === "rotations" ? 1 : unitScale[node];
      (a as unknown as Record<string, number[][]>)[channel] = times.map((_, k) => Array.from(track.values.slice(k * size, k * size + size), (v) => v * scale));
    }
    for (const a of groups.values()) {
      // Undo the camera/light and parent axis fixes per key, exactly as for the static transform.
      const own = fixes[a.node]?.clone().invert() ?? null;
      const parentFix = parentFixes[a.node]?.clone().invert() ?? null;
      const keys = a.times.map((_, k) => refixKey({ t: a.translations?.[k], r: a.rotations?.[k], s: a.scales?.[k] }, own, parentFix));
      if (a.translations) a.translations = keys.map((k) => k.t!);
      if (a.rotations) a.rotations = keys.map((k) => k.r!);
      if (a.scales) a.scales = keys.map((k) => k.s!);
      out.push(a);
    }
  }
  return out;
}
