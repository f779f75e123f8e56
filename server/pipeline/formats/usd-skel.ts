/**
 * UsdSkel for the USDA writer: which nodes become the joints of which Skeleton prim, and the lines
 * of Skeleton, SkelAnimation, the meshes' SkelBindingAPI and their BlendShape prims.
 *
 * Decisions (docs/pipeline.md, "Asset data"):
 * - Skins that share a joint share one Skeleton. Its joints are the skins' joints plus the nodes
 *   between them and the deepest node above all of them, which the Skeleton prim sits under
 *   (skeleton space = that node's space). Joint nodes are not written as Xforms: UsdSkel poses
 *   joints through the Skeleton only.
 * - bindTransforms are the inverse of glTF's inverse bind matrices (skeleton space) with an
 *   identity geomBindTransform: USD skins `point · geomBind · bind⁻¹ · joint` in row vectors,
 *   glTF `joint · IBM · point` in columns, the same product.
 * - Each mesh keeps its skin's joint order through `skel:joints` when it differs from the
 *   Skeleton's, so jointIndices are the interchange's joint indices.
 * - Morph targets need a bound Skeleton for their weights (SkelAnimation blendShapeWeights);
 *   a mesh without a skin gets a Skeleton without joints beside it.
 * - A non-joint node below a joint cannot stay there (USD has no prims under joints): it moves
 *   under the Skeleton's parent at its rest placement, with a warning; attachments of joint nodes
 *   are dropped with a warning.
 */
import { Matrix4, Quaternion } from "three";
import { formatFloat as f } from "./text";
import { USD_TIME_CODES_PER_SECOND as TIME_CODES, usdIdentifier as usdId, usdString } from "./usd";
import { userPropertiesEntry } from "./usd-properties";
import { decomposeTrs, localMatrix, uniqueNames, type InterchangeNode, type InterchangeScene } from "./interchange";

export interface PlannedSkeleton {
  name: string;
  /** Node whose Xform holds the Skeleton prim; null: the root prim. */
  parent: number | null;
  /** Joint nodes, parents before children; empty for a morph-only Skeleton. */
  joints: number[];
  /** Joint path tokens ("Hip/Knee"), one per joint. */
  paths: string[];
  /** Skeleton-space bind matrix per joint (three's column-major). */
  bind: Matrix4[];
  /** Mesh nodes whose morph weights this Skeleton's animation carries, with their channel names. */
  morphs: { node: number; channels: string[] }[];
}

export interface SkelPlan {
  skeletons: PlannedSkeleton[];
  /** Node → its Skeleton and joint index. */
  jointOf: Map<number, { skel: number; index: number }>;
  /** Mesh node → the Skeleton its mesh binds. */
  meshSkeleton: Map<number, number>;
  /** Non-joint nodes moved out from under a joint: new parent and rest transform relative to it. */
  moved: Map<number, { parent: number | null; trs: Pick<InterchangeNode, "translation" | "rotation" | "scale"> }>;
}

/** Deepest common ancestor (or null) of the given nodes, themselves included. */
function commonAncestor(scene: InterchangeScene, of: (number | null)[]): number | null {
  const chain = (n: number | null) => {
    const out: (number | null)[] = [];
    for (let at = n; at !== null; at = scene.nodes[at].parent) out.unshift(at);
    return out;
  };
  let common = chain(of[0]);
  for (const n of of.slice(1)) {
    const c = chain(n);
    let k = 0;
    while (k < common.length && k < c.length && common[k] === c[k]) k++;
    common = common.slice(0, k);
  }
  return common.length ? (common[common.length - 1] as number) : null;
}

/** The joint set closed under "nodes between the joints and the node above them all"; that node is the parent. */
function close(scene: InterchangeScene, joints: Set<number>): { nodes: Set<number>; parent: number | null } {
  const roots = [...joints].filter((j) => !joints.has(scene.nodes[j].parent ?? -1));
  const parent = commonAncestor(scene, roots.map((r) => scene.nodes[r].parent));
  const nodes = new Set(joints);
  for (const r of roots) for (let at = scene.nodes[r].parent; at !== parent && at !== null; at = scene.nodes[at].parent) nodes.add(at);
  return { nodes, parent };
}

/** Plans the Skeletons of a scene (see the module comment); `warn` names what moves or drops. */
export function planSkeletons(scene: InterchangeScene, warn: (m: string) => void): SkelPlan {
  const skins = scene.skins ?? [];
  const usedSkins = [...new Set(scene.nodes.flatMap((n) => (n.skin !== undefined && n.mesh !== undefined && scene.meshes[n.mesh].joints ? [n.skin] : [])))].filter((s) => {
    if (skins[s].joints.length) return true;
    warn(`usd: skin "${skins[s].name}" has no joints; dropped`);
    return false;
  });
  // Merge skins whose closed joint sets meet until none do (each pass merges at least two groups).
  let groups = usedSkins.map((s) => ({ skins: [s], ...close(scene, new Set(skins[s].joints)) }));
  for (let merged = true; merged; ) {
    merged = false;
    outer: for (let a = 0; a < groups.length; a++)
      for (let b = a + 1; b < groups.length; b++)
        // A Skeleton sits under its parent's Xform, which a joint has not: such groups merge too.
        if ([...groups[b].nodes].some((n) => groups[a].nodes.has(n)) || groups[b].nodes.has(groups[a].parent ?? -1) || groups[a].nodes.has(groups[b].parent ?? -1)) {
          groups[a] = { skins: [...groups[a].skins, ...groups[b].skins], ...close(scene, new Set([...groups[a].nodes, ...groups[b].nodes])) };
          groups = groups.filter((_, k) => k !== b);
          merged = true;
          break outer;
        }
  }
  const plan: SkelPlan = { skeletons: [], jointOf: new Map(), meshSkeleton: new Map(), moved: new Map() };
  for (const g of groups) {
    // Parents before children: order by depth below the Skeleton's parent, then by node order.
    const depth = (n: number) => {
      let d = 0;
      for (let at: number | null = n; at !== g.parent && at !== null; at = scene.nodes[at].parent) d++;
      return d;
    };
    const joints = [...g.nodes].sort((a, b) => depth(a) - depth(b) || a - b);
    // Paths unique among siblings (USD paths name joints), as prim names are.
    const pathOf = new Map<number, string>();
    const taken = new Set<string>();
    const paths = joints.map((j) => {
      const parent = scene.nodes[j].parent;
      const prefix = parent !== null && pathOf.has(parent) ? `${pathOf.get(parent)}/` : "";
      const base = usdId(scene.nodes[j].name);
      let path = prefix + base;
      for (let k = 2; taken.has(path); k++) path = `${prefix}${base}_${k}`;
      taken.add(path);
      pathOf.set(j, path);
      return path;
    });
    const at = new Map(joints.map((j, k) => [j, k]));
    // Bind matrices from the first skin naming the joint; joints no skin names (in between) bind at rest.
    const world = restInSkeleton(scene, joints, g.parent);
    const bind = joints.map((_, k) => world[k]);
    const fromSkin = new Set<number>();
    for (const s of g.skins) {
      const skin = skins[s];
      skin.joints.forEach((j, k) => {
        const m = new Matrix4().fromArray(skin.inverseBindMatrices, 16 * k).invert();
        const k2 = at.get(j)!;
        if (!fromSkin.has(j)) (bind[k2] = m), fromSkin.add(j);
        else if (m.elements.some((v, e) => Math.abs(v - bind[k2].elements[e]) > 1e-5)) warn(`usd: bind pose of joint "${scene.nodes[j].name}" differs between skins; skin "${skin.name}" written with the first one's`);
      });
    }
    const skel = plan.skeletons.push({ name: skins[g.skins[0]].name, parent: g.parent, joints, paths, bind, morphs: [] }) - 1;
    joints.forEach((j, index) => plan.jointOf.set(j, { skel, index }));
    scene.nodes.forEach((n, i) => n.skin !== undefined && g.skins.includes(n.skin) && plan.meshSkeleton.set(i, skel));
  }
  scene.nodes.forEach((n, i) => {
    if (!plan.jointOf.has(i)) return;
    for (const what of ["mesh", "light", "camera"] as const) if (n[what] !== undefined) warn(`usd: ${what} of joint node "${n.name}" dropped (UsdSkel joints hold no prims)`);
  });
  // Non-joint nodes under joints move under the Skeleton's parent at their rest placement.
  scene.nodes.forEach((n, i) => {
    if (plan.jointOf.has(i) || n.parent === null || !plan.jointOf.has(n.parent)) return;
    const skel = plan.skeletons[plan.jointOf.get(n.parent)!.skel];
    const m = localMatrix(n);
    for (let at: number | null = n.parent; at !== null && at !== skel.parent; at = scene.nodes[at].parent) m.premultiply(localMatrix(scene.nodes[at]));
    plan.moved.set(i, { parent: skel.parent, trs: decomposeTrs(m) });
    warn(`usd: node "${n.name}" moved out from under joint "${scene.nodes[n.parent].name}" (USD has no prims below joints), at its rest placement; animation no longer moves it`);
  });
  // Morph weights travel in a Skeleton's animation: the skin's, or one of the mesh node's own.
  scene.nodes.forEach((n, i) => {
    const m = n.mesh === undefined ? undefined : scene.meshes[n.mesh];
    if (!m?.morphTargets?.length || plan.jointOf.has(i)) return;
    let skel = plan.meshSkeleton.get(i);
    if (skel === undefined) {
      skel = plan.skeletons.push({ name: `${n.name} morphs`, parent: i, joints: [], paths: [], bind: [], morphs: [] }) - 1;
      plan.meshSkeleton.set(i, skel);
    }
    plan.skeletons[skel].morphs.push({ node: i, channels: [] });
  });
  for (const s of plan.skeletons) {
    const names = uniqueNames(s.morphs.flatMap(({ node }) => scene.meshes[scene.nodes[node].mesh!].morphTargets!.map((t) => usdId(t.name))));
    let next = 0;
    for (const m of s.morphs) m.channels = scene.meshes[scene.nodes[m.node].mesh!].morphTargets!.map(() => names[next++]);
  }
  return plan;
}

/** Rest matrices of the joints in skeleton space (relative to `parent`). */
function restInSkeleton(scene: InterchangeScene, joints: number[], parent: number | null): Matrix4[] {
  return joints.map((j) => {
    const m = new Matrix4();
    for (let at: number | null = j; at !== null && at !== parent; at = scene.nodes[at].parent) m.premultiply(localMatrix(scene.nodes[at]));
    return m;
  });
}

/** A matrix as USDA matrix4d: three's column-major elements are USD's rows (row vectors, translation last). */
export function usdMatrix(m: Matrix4): string {
  const e = m.elements;
  return `(${[0, 4, 8, 12].map((r) => `(${f(e[r])}, ${f(e[r + 1])}, ${f(e[r + 2])}, ${f(e[r + 3])})`).join(", ")})`;
}

const tokens = (a: string[]) => `[${a.map(usdString).join(", ")}]`;
const tuples = (vs: number[][]) => `[${vs.map((v) => `(${v.map(f).join(", ")})`).join(", ")}]`;

/** One channel of a node as keys; the first animation carrying it wins (as in the rest of the writer). */
type Track = { times: number[]; values: number[][] };
function tracks(scene: InterchangeScene, node: number): Partial<Record<"translations" | "rotations" | "scales" | "weights", Track>> {
  const out: Partial<Record<"translations" | "rotations" | "scales" | "weights", Track>> = {};
  for (const a of scene.animations) {
    if (a.node !== node) continue;
    for (const ch of ["translations", "rotations", "scales", "weights"] as const) if (a[ch] && !out[ch]) out[ch] = { times: a.times, values: a[ch] as number[][] };
  }
  return out;
}

/** A track's value at time t: linear (spherical for rotations) between keys, held past the ends. */
export function sample(track: Track, t: number, rotation: boolean): number[] {
  const { times, values } = track;
  if (t <= times[0]) return values[0];
  if (t >= times[times.length - 1]) return values[values.length - 1];
  // Binary search: the first key at or after t (readers call this for every key of long tracks).
  let lo = 1, hi = times.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  const k = lo;
  const u = (t - times[k - 1]) / (times[k] - times[k - 1]);
  if (rotation) {
    const q = new Quaternion(...(values[k - 1] as [number, number, number, number])).slerp(new Quaternion(...(values[k] as [number, number, number, number])), u);
    return [q.x, q.y, q.z, q.w];
  }
  return values[k].map((v, i) => values[k - 1][i] + (v - values[k - 1][i]) * u);
}

/** Lines of a Skeleton prim (with its SkelAnimation when anything moves or morphs), at `path`. */
export function skeletonLines(scene: InterchangeScene, s: PlannedSkeleton, id: string, path: string, pad: string): string[] {
  const q = pad + "    ";
  const data = s.name === id ? [] : [`string kilnName = ${usdString(s.name)}`];
  // Joints are no prims: their custom properties ride in the Skeleton's customData, by joint path.
  const joints = s.joints.flatMap((j, k) => userPropertiesEntry(s.paths[k], scene.nodes[j].extras));
  if (joints.length) data.push(["dictionary kilnJointUserProperties = {", ...joints.flatMap((e) => e.split("\n")).map((l) => `    ${l}`), "}"].join("\n"));
  const animated = s.joints.filter((j) => Object.keys(tracks(scene, j)).some((ch) => ch !== "weights"));
  const anim = animated.length > 0 || s.morphs.length > 0;
  const out = [`${pad}def Skeleton "${id}" (`, `${q}prepend apiSchemas = ["SkelBindingAPI"]`];
  if (data.length) out.push(`${q}customData = {`, ...data.flatMap((d) => d.split("\n")).map((d) => `${q}    ${d}`), `${q}}`);
  out.push(`${pad})`, `${pad}{`);
  out.push(`${q}uniform token[] joints = ${tokens(s.paths)}`);
  out.push(`${q}uniform token[] jointNames = ${tokens(s.joints.map((j) => scene.nodes[j].name))}`);
  out.push(`${q}uniform matrix4d[] bindTransforms = [${s.bind.map(usdMatrix).join(", ")}]`);
  out.push(`${q}uniform matrix4d[] restTransforms = [${s.joints.map((j) => usdMatrix(localMatrix(scene.nodes[j]))).join(", ")}]`);
  if (anim) out.push(`${q}rel skel:animationSource = <${path}/Animation>`, "", ...animationLines(scene, s, animated, q));
  out.push(`${pad}}`);
  return out;
}

/** SkelAnimation: animated joints' TRS sampled at the union of their key times; morph weights likewise. */
function animationLines(scene: InterchangeScene, s: PlannedSkeleton, animated: number[], pad: string): string[] {
  const q = pad + "    ";
  const index = new Map(s.joints.map((j, k) => [j, k]));
  const out = [`${pad}def SkelAnimation "Animation"`, `${pad}{`, `${q}uniform token[] joints = ${tokens(animated.map((j) => s.paths[index.get(j)!]))}`];
  const byJoint = animated.map((j) => tracks(scene, j));
  const channels = [["translations", "float3", "translation"], ["rotations", "quatf", "rotation"], ["scales", "half3", "scale"]] as const;
  for (const [ch, type, field] of channels) {
    if (!animated.length) break;
    const rest = (k: number) => scene.nodes[animated[k]][field] as number[];
    const fmt = (v: number[]) => (ch === "rotations" ? [v[3], v[0], v[1], v[2]] : v); // USD quaternions are (w, x, y, z)
    const times = [...new Set(byJoint.flatMap((t) => t[ch]?.times ?? []))].sort((a, b) => a - b);
    if (!times.length) {
      out.push(`${q}${type}[] ${ch} = ${tuples(animated.map((_, k) => fmt(rest(k))))}`);
      continue;
    }
    const keys = times.map((t) => `${q}    ${f(t * TIME_CODES)}: ${tuples(byJoint.map((tr, k) => fmt(tr[ch] ? sample(tr[ch]!, t, ch === "rotations") : rest(k))))},`);
    out.push(`${q}${type}[] ${ch}.timeSamples = {`, ...keys, `${q}}`);
  }
  if (s.morphs.length) {
    out.push(`${q}uniform token[] blendShapes = ${tokens(s.morphs.flatMap((m) => m.channels))}`);
    const defaults = s.morphs.flatMap(({ node }) => morphDefaults(scene, node));
    out.push(`${q}float[] blendShapeWeights = [${defaults.map(f).join(", ")}]`);
    const weightTracks = s.morphs.map(({ node }) => tracks(scene, node).weights);
    const times = [...new Set(weightTracks.flatMap((t) => t?.times ?? []))].sort((a, b) => a - b);
    if (times.length) {
      const keys = times.map((t) => `${q}    ${f(t * TIME_CODES)}: [${s.morphs.flatMap(({ node }, k) => (weightTracks[k] ? sample(weightTracks[k]!, t, false) : morphDefaults(scene, node))).map(f).join(", ")}],`);
      out.push(`${q}float[] blendShapeWeights.timeSamples = {`, ...keys, `${q}}`);
    }
  }
  out.push(`${pad}}`);
  return out;
}

/** A mesh node's weights when nothing animates them: its own, else its mesh's defaults, else zero. */
function morphDefaults(scene: InterchangeScene, node: number): number[] {
  const n = scene.nodes[node], m = scene.meshes[n.mesh!];
  return n.morphWeights ?? m.morphWeights ?? m.morphTargets!.map(() => 0);
}

const vec3s = (a: ArrayLike<number>, indices?: number[]) => {
  const parts = (indices ?? Array.from({ length: a.length / 3 }, (_, k) => k)).map((v) => `(${f(a[3 * v])}, ${f(a[3 * v + 1])}, ${f(a[3 * v + 2])})`);
  return `[${parts.join(", ")}]`;
};

/**
 * What a mesh prim of node `i` carries for UsdSkel: its binding lines (after the mesh's own), its
 * BlendShape children, and customData entries. `skeletonPath` stands for the bound Skeleton's path.
 */
export function meshSkelLines(scene: InterchangeScene, plan: SkelPlan, i: number, meshPath: string, skeletonPath: (skel: number) => string, q: string): { lines: string[]; children: string[]; data: string[] } | undefined {
  const skel = plan.meshSkeleton.get(i);
  if (skel === undefined) return undefined;
  const n = scene.nodes[i], m = scene.meshes[n.mesh!], s = plan.skeletons[skel];
  const lines = [`${q}rel skel:skeleton = <${skeletonPath(skel)}>`];
  const children: string[] = [];
  const data: string[] = [];
  const skin = n.skin === undefined ? undefined : scene.skins![n.skin];
  if (skin?.joints.length && m.joints && m.weights) {
    const skinPaths = skin.joints.map((j) => s.paths[plan.jointOf.get(j)!.index]);
    if (skinPaths.join("\n") !== s.paths.join("\n")) lines.push(`${q}uniform token[] skel:joints = ${tokens(skinPaths)}`);
    // Influences per vertex: the most any vertex has (non-zero), packed first; the rest pad with (0, 0).
    const count = m.positions.length / 3;
    let size = 1;
    for (let v = 0; v < count; v++) {
      let used = 0;
      for (let k = 0; k < 4; k++) if (m.weights[4 * v + k] !== 0) used++;
      size = Math.max(size, used);
    }
    const idx: number[] = [], wts: number[] = [];
    for (let v = 0; v < count; v++) {
      let used = 0;
      for (let k = 0; k < 4; k++) if (m.weights[4 * v + k] !== 0) (idx.push(m.joints[4 * v + k]), wts.push(m.weights[4 * v + k]), used++);
      for (; used < size; used++) (idx.push(0), wts.push(0));
    }
    const meta = ` (\n${q}    elementSize = ${size}\n${q}    interpolation = "vertex"\n${q})`;
    lines.push(`${q}int[] primvars:skel:jointIndices = [${idx.join(", ")}]${meta}`);
    lines.push(`${q}float[] primvars:skel:jointWeights = [${wts.map(f).join(", ")}]${meta}`);
    lines.push(`${q}matrix4d primvars:skel:geomBindTransform = ${usdMatrix(new Matrix4())}`);
  }
  const morph = s.morphs.find((x) => x.node === i);
  if (morph && m.morphTargets) {
    const ids = uniqueNames(m.morphTargets.map((t) => usdId(t.name)));
    lines.push(`${q}uniform token[] skel:blendShapes = ${tokens(morph.channels)}`);
    lines.push(`${q}rel skel:blendShapeTargets = [${ids.map((id) => `<${meshPath}/${id}>`).join(", ")}]`);
    // USD keeps weights on the animation, per node; the mesh's own defaults ride in customData when they differ.
    if (n.morphWeights && m.morphWeights && n.morphWeights.some((w, k) => w !== m.morphWeights![k])) data.push(`float[] kilnMorphWeights = [${m.morphWeights.map(f).join(", ")}]`);
    m.morphTargets.forEach((t, k) => {
      const moved: number[] = [];
      for (let v = 0; v < t.positions.length / 3; v++) if (t.positions[3 * v] || t.positions[3 * v + 1] || t.positions[3 * v + 2] || t.normals?.[3 * v] || t.normals?.[3 * v + 1] || t.normals?.[3 * v + 2]) moved.push(v);
      // Sparse (pointIndices) when it is shorter: fewer than half the points move.
      const sparse = moved.length * 2 < t.positions.length / 3 ? moved : undefined;
      const name = t.name === ids[k] ? "" : ` (\n${q}    customData = {\n${q}        string kilnName = ${usdString(t.name)}\n${q}    }\n${q})`;
      children.push("", `${q}def BlendShape "${ids[k]}"${name}`, `${q}{`, `${q}    uniform vector3f[] offsets = ${vec3s(t.positions, sparse)}`);
      if (t.normals) children.push(`${q}    uniform vector3f[] normalOffsets = ${vec3s(t.normals, sparse)}`);
      if (sparse) children.push(`${q}    uniform int[] pointIndices = [${sparse.join(", ")}]`);
      children.push(`${q}}`);
    });
  }
  return { lines, children, data };
}
