/**
 * Budgets for files from outside (docs/pipeline.md, "Limits"). Every reader checks the counts a
 * file declares against the bytes it actually holds before allocating, and `checkDecodedScene`
 * checks what any decoder produced against these caps before the scene is planned into an app:
 * no count, depth or number in an accepted file can exhaust memory or the stack, or make a later
 * export or transfer fail. A broken budget throws `LimitError`, whose message names the limit.
 */
import { ANIMATION_CHANNELS, type InterchangeScene } from "./interchange";

/** The caps, one place; docs/pipeline.md lists them in a table. */
export const LIMITS = {
  /** OBJ, USDA and .gltf JSON are read as text: a string of more than ~512 MiB cannot exist in V8. */
  textFileBytes: 256 * 2 ** 20,
  /**
   * ASCII FBX: three's FBXLoader parses it into a tree of strings and number arrays of ~25 times
   * the file's size (25 MB took 0.7 GB and 9 s), so it gets a cap of its own; larger scenes come
   * as binary FBX or glTF.
   */
  fbxTextBytes: 32 * 2 ** 20,
  /** GLB, binary FBX and any file besides. */
  binaryFileBytes: 2 ** 30,
  /** Nodes (objects) in one file. */
  nodes: 100_000,
  /** Parent chain length: deeper trees are read without recursion, but refused past this. */
  hierarchyDepth: 256,
  /** Triangles placed by one file, counting a mesh once per node that uses it. */
  triangles: 10_000_000,
  /** Vertices of all meshes of one file. */
  vertices: 30_000_000,
  materials: 10_000,
  /** Keys per animated node, as set_keyframe allows per object. */
  keyframes: 10_000,
  /** |coordinate| in metres for vertex positions, translations and world placements. */
  coordinate: 1e9,
  /** |scale| per node and the largest entry of any node's world matrix. */
  scale: 1e9,
  /** FBX arrays inflated from zlib, in total: at most this many bytes... */
  fbxInflatedBytes: 2 ** 30,
  /** ...and at most this many times the file's size (plus 64 MiB), so a small zlib bomb is refused before inflating. */
  fbxInflateRatio: 64,
  /**
   * One USDA string, asset path or path, in bytes of the file: twice the custom properties'
   * budget, room for a property's JSON with every quote escaped.
   */
  usdaStringBytes: 32 * 2 ** 20,
  /** Nesting of USDA prims, values and dictionaries. */
  usdaDepth: 256,
  /** Levels of objects and arrays in one custom property's value (`{"a": [[1]]}`: 2). */
  propertiesDepth: 64,
  /** Custom properties of one file, in characters of their JSON text. */
  propertiesChars: 16 * 2 ** 20,
} as const;

/** A file broke one of LIMITS (or claims data it does not hold). */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LimitError";
  }
}

/** Throws a LimitError with `message` unless `ok`. */
export function budget(ok: boolean, message: string): asserts ok {
  if (!ok) throw new LimitError(message);
}

const finiteWithin = (v: ArrayLike<number>, max: number) => {
  // A plain loop: this runs over every coordinate of a million-triangle mesh.
  for (let k = 0; k < v.length; k++) if (!(Math.abs(v[k]) <= max)) return false;
  return true;
};

/**
 * Nesting depth of a JSON value (a scalar is 0, `{}` 1), without recursion and stopping past
 * `max`: a custom property decoded from JSON text (a USDA kilnJson, an FBX KilnJSON) may be a
 * million levels deep, and JSON.stringify would overflow the stack on it.
 */
export function jsonDepth(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    deepest = Math.max(deepest, d + 1);
    if (deepest > max) return deepest;
    for (const c of Array.isArray(v) ? v : Object.values(v)) if (typeof c === "object" && c !== null) stack.push([c, d + 1]);
  }
  return deepest;
}

/** Custom properties of every node, mesh and material: depth per value and size in total capped. */
function checkProperties(scene: InterchangeScene): void {
  let chars = 0;
  const owners = [...scene.nodes.map((n) => ["node", n] as const), ...scene.meshes.map((m) => ["mesh", m] as const), ...scene.materials.map((m) => ["material", m] as const)];
  for (const [kind, o] of owners) {
    if (o.extras === undefined) continue;
    budget(jsonDepth(o.extras, LIMITS.propertiesDepth + 1) <= LIMITS.propertiesDepth + 1, `custom properties of ${kind} "${o.name}" nest deeper than ${LIMITS.propertiesDepth} levels`);
    chars += JSON.stringify(o.extras)?.length ?? 0;
    budget(chars <= LIMITS.propertiesChars, `the file's custom properties take more than ${LIMITS.propertiesChars} characters of JSON`);
  }
}

/** Depth of every node (roots 1), without recursion; Infinity for nodes in a parent cycle. */
function depths(scene: InterchangeScene): number[] {
  const out: number[] = new Array(scene.nodes.length).fill(0);
  for (let i = 0; i < scene.nodes.length; i++) {
    const chain: number[] = [];
    let at: number | null = i;
    while (at !== null && out[at] === 0 && chain.length <= scene.nodes.length) {
      chain.push(at);
      out[at] = -1; // on the current chain
      at = scene.nodes[at].parent;
    }
    let base = at === null ? 0 : out[at] === -1 ? Infinity : out[at];
    for (let k = chain.length - 1; k >= 0; k--) out[chain[k]] = base = base + 1;
  }
  return out;
}

/**
 * World matrices' largest entries, parents first and without recursion (a 100,000-deep chain is
 * refused by depth before this runs, but this must not be the thing that overflows the stack).
 */
function worldScaleOk(scene: InterchangeScene, depth: number[]): number {
  const order = scene.nodes.map((_, i) => i).sort((a, b) => depth[a] - depth[b]);
  const world: Float64Array[] = new Array(scene.nodes.length);
  for (const i of order) {
    const n = scene.nodes[i];
    const [x, y, z, w] = n.rotation;
    const [sx, sy, sz] = n.scale;
    // Column-major 4x4 of T·R·S (as three's Matrix4.compose).
    const local = new Float64Array([
      (1 - 2 * (y * y + z * z)) * sx, 2 * (x * y + z * w) * sx, 2 * (x * z - y * w) * sx, 0,
      2 * (x * y - z * w) * sy, (1 - 2 * (x * x + z * z)) * sy, 2 * (y * z + x * w) * sy, 0,
      2 * (x * z + y * w) * sz, 2 * (y * z - x * w) * sz, (1 - 2 * (x * x + y * y)) * sz, 0,
      n.translation[0], n.translation[1], n.translation[2], 1,
    ]);
    const parent = n.parent === null ? undefined : world[n.parent];
    const m = parent ? multiply(parent, local) : local;
    if (!finiteWithin(m, LIMITS.scale)) return i;
    world[i] = m;
  }
  return -1;
}

function multiply(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) out[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] + a[12 + r] * b[c * 4 + 3];
  return out;
}

/**
 * Checks a decoded scene against LIMITS and for numbers a later export could not write: every
 * number finite and within range, every index in range, no parent cycles, depth capped. Throws
 * LimitError naming the first limit broken.
 */
export function checkDecodedScene(scene: InterchangeScene): void {
  const { nodes, meshes, materials, animations } = scene;
  budget(nodes.length <= LIMITS.nodes, `the file has ${nodes.length} nodes; at most ${LIMITS.nodes} are read`);
  budget(materials.length <= LIMITS.materials, `the file has ${materials.length} materials; at most ${LIMITS.materials} are read`);
  let vertices = 0;
  meshes.forEach((m, i) => {
    const count = m.positions.length / 3;
    vertices += count;
    budget(vertices <= LIMITS.vertices, `the file's meshes have more than ${LIMITS.vertices} vertices`);
    budget(Number.isInteger(count) && m.normals.length === m.positions.length && m.indices.length % 3 === 0, `mesh "${m.name}" has ragged arrays`);
    budget(finiteWithin(m.positions, LIMITS.coordinate), `mesh "${m.name}" has a vertex coordinate that is not a finite number within ±${LIMITS.coordinate} m`);
    budget(finiteWithin(m.normals, 1e6), `mesh "${m.name}" has a normal that is not a finite number`);
    for (let k = 0; k < m.indices.length; k++) budget(m.indices[k] < count, `mesh "${m.name}" refers to vertex ${m.indices[k]} of ${count}`);
    void i;
    checkVertexData(m, count);
  });
  (scene.skins ?? []).forEach((s) => {
    budget(s.joints.every((j) => Number.isInteger(j) && j >= 0 && j < nodes.length), `skin "${s.name}" names a joint node that does not exist`);
    budget(s.inverseBindMatrices.length === s.joints.length * 16 && finiteWithin(s.inverseBindMatrices, LIMITS.scale), `skin "${s.name}" has inverse bind matrices that are not 16 finite numbers per joint`);
  });
  nodes.forEach((n) => {
    const m = n.mesh === undefined ? undefined : meshes[n.mesh];
    budget(n.skin === undefined || (Number.isInteger(n.skin) && n.skin >= 0 && n.skin < (scene.skins?.length ?? 0) && !!m?.joints), `node "${n.name}" refers to a skin that does not exist`);
    budget(!n.materials || n.materials.every((k) => k === null || (Number.isInteger(k) && k >= 0 && k < materials.length)), `node "${n.name}" refers to a material that does not exist`);
    budget(!n.morphWeights || finiteWithin(n.morphWeights, LIMITS.coordinate), `node "${n.name}" has morph weights that are not finite numbers`);
  });
  materials.forEach((m) => {
    for (const t of Object.values(m.textures ?? {}))
      budget(Number.isInteger(t.image) && t.image >= 0 && t.image < (scene.images?.length ?? 0) && finiteWithin([...(t.offset ?? []), ...(t.scale ?? []), t.rotation ?? 0], LIMITS.coordinate), `material "${m.name}" has a texture that does not exist or a transform that is not finite`);
    budget(finiteWithin([...(m.emissive ?? []), m.alphaCutoff ?? 0], Number.MAX_VALUE), `material "${m.name}" has a value that is not a finite number`);
  });
  let triangles = 0;
  nodes.forEach((n, i) => {
    const name = `node "${n.name}"`;
    budget(n.parent === null || (Number.isInteger(n.parent) && n.parent >= 0 && n.parent < nodes.length && n.parent !== i), `${name} has a parent that does not exist`);
    budget(finiteWithin(n.translation, LIMITS.coordinate), `${name} has a translation that is not a finite number within ±${LIMITS.coordinate} m`);
    budget(finiteWithin(n.scale, LIMITS.scale), `${name} has a scale that is not a finite number within ±${LIMITS.scale}`);
    budget(finiteWithin(n.rotation, 1.001) && Math.abs(Math.hypot(...n.rotation) - 1) < 1e-3, `${name} has a rotation that is not a unit quaternion`);
    budget(n.mesh === undefined || (Number.isInteger(n.mesh) && n.mesh >= 0 && n.mesh < meshes.length), `${name} refers to a mesh that does not exist`);
    budget(n.material === undefined || (Number.isInteger(n.material) && n.material >= 0 && n.material < materials.length), `${name} refers to a material that does not exist`);
    if (n.mesh !== undefined) triangles += meshes[n.mesh].indices.length / 3;
    budget(triangles <= LIMITS.triangles, `the file places more than ${LIMITS.triangles} triangles (a mesh counts once per node using it)`);
    if (n.light) budget(finiteWithin([...n.light.color, n.light.intensity, n.light.range ?? 0, n.light.spotAngleDeg ?? 0], Number.MAX_VALUE), `light of ${name} has a value that is not a finite number`);
  });
  checkProperties(scene);
  const depth = depths(scene);
  const deepest = depth.reduce((a, b) => Math.max(a, b), 0);
  budget(deepest !== Infinity, "the file's node hierarchy has a parent cycle");
  budget(deepest <= LIMITS.hierarchyDepth, `the file nests nodes ${deepest} deep; at most ${LIMITS.hierarchyDepth} levels are read`);
  const bad = worldScaleOk(scene, depth);
  budget(bad < 0, `node "${nodes[bad]?.name}" is placed beyond ±${LIMITS.scale} (its parents' scales and translations multiply up)`);
  materials.forEach((m) => budget(finiteWithin([...m.color, m.metallic, m.roughness], Number.MAX_VALUE), `material "${m.name}" has a value that is not a finite number`));
  const keys = new Map<number, number>();
  animations.forEach((a) => {
    budget(Number.isInteger(a.node) && a.node >= 0 && a.node < nodes.length, "an animation targets a node that does not exist");
    const total = (keys.get(a.node) ?? 0) + a.times.length;
    keys.set(a.node, total);
    budget(total <= LIMITS.keyframes, `node "${nodes[a.node].name}" has ${total} keyframes; at most ${LIMITS.keyframes} are read`);
    budget(finiteWithin(a.times, 1e9), `an animation of node "${nodes[a.node].name}" has a key time that is not a finite number`);
    for (const ch of ANIMATION_CHANNELS) {
      const values = a[ch];
      if (!values) continue;
      budget(values.length === a.times.length, `an animation of node "${nodes[a.node].name}" has ${values.length} ${ch} for ${a.times.length} times`);
      const max = ch === "rotations" ? 1.001 : ch === "scales" ? LIMITS.scale : LIMITS.coordinate;
      const width = ch === "rotations" ? 4 : ch === "weights" ? 0 : 3;
      for (const v of values) budget(v.length >= width && finiteWithin(v, max), `an animation of node "${nodes[a.node].name}" has ${ch} that are not finite numbers within ±${max}`);
    }
  });
}

/** UV sets, colours, skin weights, material groups and morph targets of a mesh, against its vertex count. */
function checkVertexData(m: InterchangeScene["meshes"][number], count: number): void {
  const name = `mesh "${m.name}"`;
  budget((m.uvs?.length ?? 0) <= 2 && (m.uvs ?? []).every((uv) => uv.length === count * 2 && finiteWithin(uv, LIMITS.coordinate)), `${name} has UVs that are not 2 finite numbers per vertex`);
  budget(!m.colors || (m.colors.length === count * 4 && finiteWithin(m.colors, LIMITS.coordinate)), `${name} has colours that are not 4 finite numbers per vertex`);
  budget(!m.joints === !m.weights && (!m.weights || (m.weights.length === count * 4 && m.joints!.length === count * 4 && finiteWithin(m.weights, LIMITS.coordinate))), `${name} has skin weights that are not 4 finite numbers per vertex`);
  let next = 0;
  for (const g of m.groups ?? []) {
    budget(g.start === next && Number.isInteger(g.count) && g.count > 0 && g.count % 3 === 0, `${name} has material groups that are not consecutive whole triangles`);
    next += g.count;
  }
  budget(!m.groups || next === m.indices.length, `${name} has material groups that do not cover its triangles`);
  for (const t of m.morphTargets ?? [])
    budget(t.positions.length === count * 3 && (!t.normals || t.normals.length === count * 3) && finiteWithin(t.positions, LIMITS.coordinate) && (!t.normals || finiteWithin(t.normals, 1e6)), `${name} has a morph target that is not one finite offset per vertex`);
  budget(!m.morphWeights || (m.morphWeights.length === (m.morphTargets?.length ?? 0) && finiteWithin(m.morphWeights, LIMITS.coordinate)), `${name} has morph weights that do not match its targets`);
}
