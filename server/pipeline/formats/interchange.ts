/**
 * Neutral interchange model shared by every format writer and reader.
 *
 * Conventions are glTF's: right-handed, +Y up, metres, +Z is the front of a model, cameras and
 * lights look along their local -Z, rotations are unit quaternions [x, y, z, w]. Every format
 * module converts to and from exactly this, so a scene can travel glTF → FBX → USD without each
 * pair of formats needing its own conversion.
 */
import { Matrix4, Quaternion, Vector3 } from "three";

/** A whole scene: flat node list (hierarchy through `parent`), plus shared meshes, materials, animations. */
export interface InterchangeScene {
  nodes: InterchangeNode[];
  meshes: InterchangeMesh[];
  materials: InterchangeMaterial[];
  animations: InterchangeAnimation[];
  /** Encoded image files (PNG/JPEG bytes kept as they came) that material textures point at. */
  images?: InterchangeImage[];
  /** Skins: which nodes are the joints of a skinned mesh node, and their bind poses. */
  skins?: InterchangeSkin[];
}

/** An image file as its bytes; never decoded by the pipeline (its claimed size costs nothing). */
export interface InterchangeImage {
  name: string;
  mimeType: "image/png" | "image/jpeg";
  bytes: Uint8Array;
}

/** A skin: joint nodes and one inverse bind matrix (column-major 4×4, glTF's) per joint. */
export interface InterchangeSkin {
  name: string;
  joints: number[];
  inverseBindMatrices: Float32Array;
}

/** Custom properties (glTF extras, FBX user properties, USD customData): plain JSON. */
export type InterchangeExtras = Record<string, unknown>;

/** Light carried by a node; it shines along the node's local -Z (directional, spot). */
export interface InterchangeLight {
  type: "directional" | "point" | "spot";
  /** Linear RGB. */
  color: [number, number, number];
  /** glTF units: candela for point/spot, lux for directional. */
  intensity: number;
  /** Metres; undefined means unlimited. */
  range?: number;
  /** Spot cone half-angle in degrees (glTF outerConeAngle). */
  spotAngleDeg?: number;
}

/** Perspective camera carried by a node; it looks along the node's local -Z. */
export interface InterchangeCamera {
  fovYDeg: number;
  near: number;
  far: number;
}

/** One node of the scene graph, with its local TRS relative to `parent`. */
export interface InterchangeNode {
  name: string;
  /** Index into `nodes`, or null for a root. */
  parent: number | null;
  translation: [number, number, number];
  rotation: [number, number, number, number];
  scale: [number, number, number];
  /** Index into `meshes`. */
  mesh?: number;
  /** Index into `materials`; applies to `mesh`. */
  material?: number;
  /**
   * One material per group of a mesh with `groups` (material slots); null leaves a slot empty.
   * Takes the place of `material` for such meshes.
   */
  materials?: (number | null)[];
  /** Index into `skins`; the node's mesh is deformed by it. */
  skin?: number;
  /** Morph target weights of this node's mesh, when they differ from the mesh's defaults. */
  morphWeights?: number[];
  light?: InterchangeLight;
  camera?: InterchangeCamera;
  extras?: InterchangeExtras;
}

/** Triangle mesh in the local space of the node(s) that use it. */
export interface InterchangeMesh {
  name: string;
  positions: Float32Array;
  normals: Float32Array;
  indices: Uint32Array;
  /** Up to two UV sets, 2 floats per vertex, glTF's convention (origin top left, V down). */
  uvs?: Float32Array[];
  /** Vertex colours, linear RGBA, 4 floats per vertex. */
  colors?: Float32Array;
  /** Skinning: 4 joint indices (into the skin's joints) and 4 weights per vertex. */
  joints?: Uint16Array;
  weights?: Float32Array;
  /** Material slots: consecutive ranges of `indices` (start and count in indices, whole triangles). */
  groups?: { start: number; count: number }[];
  /** Morph targets: position (and normal) offsets per vertex. */
  morphTargets?: InterchangeMorphTarget[];
  /** Default morph weights, one per target. */
  morphWeights?: number[];
  extras?: InterchangeExtras;
}

export interface InterchangeMorphTarget {
  name: string;
  positions: Float32Array;
  normals?: Float32Array;
}

/** A texture slot of a material: which image, which UV set, KHR_texture_transform. */
export interface InterchangeTexture {
  image: number;
  uv: 0 | 1;
  offset?: [number, number];
  scale?: [number, number];
  /** Radians, counter-clockwise as KHR_texture_transform. */
  rotation?: number;
}

export const TEXTURE_SLOTS = ["baseColor", "normal", "metallicRoughness", "occlusion", "emissive"] as const;
export type TextureSlot = (typeof TEXTURE_SLOTS)[number];

/** Metallic-roughness material (glTF PBR core subset). */
export interface InterchangeMaterial {
  name: string;
  /** Linear RGBA base colour. */
  color: [number, number, number, number];
  metallic: number;
  roughness: number;
  textures?: Partial<Record<TextureSlot, InterchangeTexture>>;
  /** Linear RGB; black when absent. */
  emissive?: [number, number, number];
  alphaMode?: "OPAQUE" | "MASK" | "BLEND";
  alphaCutoff?: number;
  doubleSided?: boolean;
  extras?: InterchangeExtras;
}

/** Linear-interpolated TRS keyframes for one node; every present channel has one value per time. */
export interface InterchangeAnimation {
  node: number;
  /** Seconds, strictly increasing. */
  times: number[];
  translations?: [number, number, number][];
  rotations?: [number, number, number, number][];
  scales?: [number, number, number][];
  /** Morph target weights of the node's mesh, one array (one weight per target) per time. */
  weights?: number[][];
}

/** Formats the pipeline can write and read. */
export type TransferFormat = "gltf" | "fbx" | "obj" | "usd";

/** Output of an encoder: the main file first (OBJ also emits its .mtl), plus what was dropped. */
export interface EncodeResult {
  files: { name: string; bytes: Uint8Array }[];
  warnings: string[];
}

/** Output of a decoder: the scene plus what could not be carried into it. */
export interface DecodeResult {
  scene: InterchangeScene;
  warnings: string[];
}

/** The animated channels an InterchangeAnimation may carry, in a fixed order. */
export const ANIMATION_CHANNELS = ["translations", "rotations", "scales", "weights"] as const;

/**
 * Throws if the scene is structurally invalid (bad indices, parent cycles, ragged arrays).
 * Encoders call this first: a malformed scene is a programming error, not something to warn about.
 */
export function validateScene(scene: InterchangeScene): void {
  const fail = (msg: string): never => {
    throw new Error(`invalid interchange scene: ${msg}`);
  };
  const inRange = (i: number | undefined, n: number) => i === undefined || (Number.isInteger(i) && i >= 0 && i < n);
  // A plain loop: Array.prototype.every over a typed array costs half a second at 10⁶ triangles.
  const finite = (v: ArrayLike<number>) => {
    for (let k = 0; k < v.length; k++) if (!Number.isFinite(v[k])) return false;
    return true;
  };
  // Writers copy rotations verbatim, and glTF validators reject quaternions that are not unit length.
  const unit = (q: number[]) => Math.abs(Math.hypot(...q) - 1) < 1e-3;
  scene.nodes.forEach((node, i) => {
    if (!finite([...node.translation, ...node.rotation, ...node.scale])) fail(`node ${i} has a non-finite transform`);
    if (!unit(node.rotation)) fail(`node ${i} rotation is not a unit quaternion`);
    if (node.parent !== null && (!inRange(node.parent, scene.nodes.length) || node.parent === i)) fail(`node ${i} has bad parent ${node.parent}`);
    if (!inRange(node.mesh, scene.meshes.length)) fail(`node ${i} has bad mesh ${node.mesh}`);
    if (!inRange(node.material, scene.materials.length)) fail(`node ${i} has bad material ${node.material}`);
    if (node.materials && !node.materials.every((m) => m === null || inRange(m, scene.materials.length))) fail(`node ${i} has a bad material slot`);
    if (!inRange(node.skin, scene.skins?.length ?? 0)) fail(`node ${i} has bad skin ${node.skin}`);
  });
  (scene.skins ?? []).forEach((s, i) => {
    if (!s.joints.every((j) => inRange(j, scene.nodes.length))) fail(`skin ${i} has a bad joint`);
    if (s.inverseBindMatrices.length !== s.joints.length * 16 || !finite(s.inverseBindMatrices)) fail(`skin ${i} needs 16 finite numbers per joint`);
  });
  scene.materials.forEach((m, i) => {
    for (const t of Object.values(m.textures ?? {})) if (!inRange(t.image, scene.images?.length ?? 0)) fail(`material ${i} has a texture with bad image ${t.image}`);
  });
  // A parent chain longer than the node count can only be a cycle.
  scene.nodes.forEach((_, i) => {
    let p = scene.nodes[i].parent;
    for (let steps = 0; p !== null; steps++, p = scene.nodes[p].parent) if (steps > scene.nodes.length) fail(`node ${i} is in a parent cycle`);
  });
  scene.meshes.forEach((m, i) => {
    const vertexCount = m.positions.length / 3;
    if (!Number.isInteger(vertexCount)) fail(`mesh ${i} positions length is not a multiple of 3`);
    if (m.normals.length !== m.positions.length) fail(`mesh ${i} needs one normal per position`);
    if (m.indices.length % 3 !== 0) fail(`mesh ${i} indices are not whole triangles`);
    if (!finite(m.positions) || !finite(m.normals)) fail(`mesh ${i} has non-finite positions or normals`);
    for (let k = 0; k < m.indices.length; k++) if (m.indices[k] >= vertexCount) fail(`mesh ${i} index ${m.indices[k]} out of range`);
    if ((m.uvs?.length ?? 0) > 2 || !(m.uvs ?? []).every((uv) => uv.length === vertexCount * 2 && finite(uv))) fail(`mesh ${i} needs at most two UV sets of 2 finite numbers per vertex`);
    if (m.colors && (m.colors.length !== vertexCount * 4 || !finite(m.colors))) fail(`mesh ${i} needs 4 finite colour channels per vertex`);
    if (!m.joints !== !m.weights || (m.joints && (m.joints.length !== vertexCount * 4 || m.weights!.length !== vertexCount * 4 || !finite(m.weights!)))) fail(`mesh ${i} needs 4 joints and 4 finite weights per vertex`);
    let next = 0;
    for (const g of m.groups ?? []) {
      if (g.start !== next || g.count <= 0 || g.count % 3 !== 0) fail(`mesh ${i} groups must be consecutive whole-triangle ranges`);
      next += g.count;
    }
    if (m.groups && next !== m.indices.length) fail(`mesh ${i} groups must cover every index`);
    for (const t of m.morphTargets ?? [])
      if (t.positions.length !== m.positions.length || (t.normals && t.normals.length !== m.normals.length) || !finite(t.positions)) fail(`mesh ${i} morph target "${t.name}" needs one finite offset per vertex`);
    if (m.morphWeights && m.morphWeights.length !== (m.morphTargets?.length ?? 0)) fail(`mesh ${i} needs one default weight per morph target`);
  });
  scene.animations.forEach((a, i) => {
    if (!inRange(a.node, scene.nodes.length)) fail(`animation ${i} targets bad node ${a.node}`);
    for (let k = 1; k < a.times.length; k++) if (!(a.times[k] > a.times[k - 1])) fail(`animation ${i} times are not strictly increasing`);
    for (const ch of ANIMATION_CHANNELS) {
      const values = a[ch];
      if (values && values.length !== a.times.length) fail(`animation ${i} ${ch} has ${values.length} values for ${a.times.length} times`);
      if (values && !values.every((v) => finite(v as number[]) && (ch !== "rotations" || unit(v as number[])))) fail(`animation ${i} ${ch} has non-finite or non-unit values`);
    }
  });
}

/** One warning per mesh no node references: writers only emit meshes that nodes place. */
export function unusedMeshWarnings(scene: InterchangeScene, format: string): string[] {
  const used = new Set(scene.nodes.map((n) => n.mesh));
  return scene.meshes.flatMap((m, k) => (used.has(k) ? [] : [`${format}: unused mesh "${m.name}" dropped`]));
}

/**
 * Light fields that mean nothing for the light's type (range on a directional light, a cone angle
 * on a non-spot light). Writers leave them out and warn, so every format drops the same things.
 */
export function meaninglessLightFieldWarnings(scene: InterchangeScene, format: string): string[] {
  return scene.nodes.flatMap(({ name, light }) => [
    ...(light?.type === "directional" && light.range !== undefined ? [`${format}: range of directional light "${name}" dropped`] : []),
    ...(light && light.type !== "spot" && light.spotAngleDeg !== undefined ? [`${format}: cone angle of ${light.type} light "${name}" dropped`] : []),
  ]);
}

/** Local matrix of a node from its TRS. */
export function localMatrix(node: InterchangeNode): Matrix4 {
  return new Matrix4().compose(new Vector3(...node.translation), new Quaternion(...node.rotation), new Vector3(...node.scale));
}

/** World matrix of every node, parents resolved first without recursion (deep chains must not exhaust the stack). */
export function worldMatrices(scene: InterchangeScene): Matrix4[] {
  const out: (Matrix4 | undefined)[] = new Array(scene.nodes.length);
  for (let i = 0; i < scene.nodes.length; i++) {
    const chain: number[] = [];
    for (let at: number | null = i; at !== null && !out[at] && chain.length <= scene.nodes.length; at = scene.nodes[at].parent) chain.push(at);
    for (let k = chain.length - 1; k >= 0; k--) {
      const node = scene.nodes[chain[k]];
      const parent = node.parent === null ? undefined : out[node.parent];
      out[chain[k]] = parent ? parent.clone().multiply(localMatrix(node)) : localMatrix(node);
    }
  }
  return out as Matrix4[];
}

/** Decomposes a matrix into interchange TRS tuples. */
export function decomposeTrs(m: Matrix4): Pick<InterchangeNode, "translation" | "rotation" | "scale"> {
  const t = new Vector3();
  const q = new Quaternion();
  const s = new Vector3();
  m.decompose(t, q, s);
  return { translation: [t.x, t.y, t.z], rotation: [q.x, q.y, q.z, q.w], scale: [s.x, s.y, s.z] };
}

/** Identity-transform root node with the given name. */
export function rootNode(name: string): InterchangeNode {
  return { name, parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1] };
}

/**
 * Area-weighted smooth vertex normals, for sources that carry none (OBJ without `vn`, glTF without
 * NORMAL): the interchange model requires normals, and smooth ones are what viewers assume.
 */
export function computeNormals(positions: Float32Array, indices: Uint32Array): Float32Array {
  const n = new Float32Array(positions.length);
  for (let i = 0; i < indices.length; i += 3) {
    const a = indices[i] * 3, b = indices[i + 1] * 3, c = indices[i + 2] * 3;
    const ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1], uz = positions[b + 2] - positions[a + 2];
    const vx = positions[c] - positions[a], vy = positions[c + 1] - positions[a + 1], vz = positions[c + 2] - positions[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    for (const v of [a, b, c]) {
      n[v] += nx;
      n[v + 1] += ny;
      n[v + 2] += nz;
    }
  }
  for (let v = 0; v < n.length; v += 3) {
    const len = Math.hypot(n[v], n[v + 1], n[v + 2]) || 1;
    n[v] /= len;
    n[v + 1] /= len;
    n[v + 2] /= len;
  }
  return n;
}

/** Indices 0..count-1, for non-indexed sources (plain loop: `Array.from` callbacks are slow at 10⁶). */
export function sequentialIndices(count: number): Uint32Array {
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = i;
  return out;
}

/**
 * Makes names unique by suffixing `_2`, `_3`, … in order of appearance. Formats that bind data
 * by name (FBX animation tracks, USD sibling prims) need this; callers warn about every rename.
 */
export function uniqueNames(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((name) => {
    let candidate = name;
    for (let k = 2; used.has(candidate); k++) candidate = `${name}_${k}`;
    used.add(candidate);
    return candidate;
  });
}

/**
 * What a writer without support for issue 15's asset data leaves out, one warning per mesh,
 * material, skin and node. `carries` lists what this format does write.
 */
export function assetDataWarnings(scene: InterchangeScene, format: string, carries: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const drop = (what: string, where: string) => carries.has(what) || out.push(`${format}: ${what} of ${where} dropped`);
  for (const m of scene.meshes) {
    const where = `mesh "${m.name}"`;
    if (m.uvs?.length) drop("UV sets", where);
    if (m.colors) drop("vertex colours", where);
    if (m.joints) drop("skin weights", where);
    if (m.groups) drop("material slots", where);
    if (m.morphTargets?.length) drop("morph targets", where);
    if (m.extras) drop("custom properties", where);
  }
  for (const m of scene.materials) {
    const where = `material "${m.name}"`;
    if (m.textures && Object.keys(m.textures).length) drop("textures", where);
    if (m.emissive) drop("emissive colour", where);
    if (m.alphaMode === "MASK") drop("alpha cutoff", where);
    if (m.doubleSided) drop("double-sided flag", where);
    if (m.extras) drop("custom properties", where);
  }
  for (const n of scene.nodes) if (n.extras) drop("custom properties", `node "${n.name}"`);
  for (const s of scene.skins ?? []) drop("skins", `skin "${s.name}"`);
  for (const a of scene.animations) if (a.weights) drop("morph weight animation", `node "${scene.nodes[a.node].name}"`);
  return out;
}
