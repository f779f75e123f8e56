/**
 * UsdSkel for the USD reader: a Skeleton prim's joints become nodes (rest pose from
 * restTransforms, else from bindTransforms), its bound SkelAnimation becomes their keys and the
 * morph weight keys of the meshes bound to it, and each mesh with SkelBindingAPI gets a skin
 * (jointIndices/jointWeights of any elementSize, the 4 strongest kept; `skel:joints` order;
 * inverse bind = (geomBindTransform⁻¹ · bindTransform)⁻¹ in column form) and morph targets from
 * its BlendShape prims (dense or with pointIndices, normalOffsets).
 *
 * Every count is checked against the values the file holds before anything is sized from it,
 * and every number must be finite (LimitError, a 400 ASSET_UNREADABLE naming the limit).
 */
import { Matrix4, Quaternion, Vector3 } from "three";
import { budget, LIMITS } from "./limits";
import { decomposeTrs, type InterchangeAnimation, type InterchangeMorphTarget, type InterchangeScene } from "./interchange";
import type { ReadMesh } from "./usd-mesh";
import type { UsdDict, UsdPath, UsdPrim, UsdProperty, UsdValue } from "./usda-parse";
import { sample } from "./usd-skel";
import { readUserProperties } from "./usd-properties";

type Vec = number[];
const vec = (v: UsdValue | undefined): Vec | undefined => (Array.isArray(v) && v.every((x) => typeof x === "number") ? (v as Vec) : undefined);
/** A single matrix4d value, `((a, b, c, d), …)`, parses as nested tuples: flattened here. */
const matrix = (v: UsdValue | undefined): Vec | undefined => (Array.isArray(v) ? vec(v.flat(2) as UsdValue[]) : undefined);
const finite = (v: ArrayLike<number>) => {
  for (let k = 0; k < v.length; k++) if (!Number.isFinite(v[k])) return false;
  return true;
};
const kilnName = (p: UsdPrim) => (p.metadata.customData as UsdDict | undefined)?.kilnName as string | undefined;

/** A relationship's first target, resolved against the prim that holds it (`<Anim>`, `<../Skel>`). */
function target(p: UsdPrim, prop: UsdProperty | undefined): string | undefined {
  const v = prop?.value;
  const path = (Array.isArray(v) ? (v[0] as UsdPath | undefined) : (v as UsdPath | undefined))?.path;
  return path === undefined ? undefined : resolve(p.path, path);
}
function resolve(from: string, path: string): string {
  if (path.startsWith("/")) return path;
  const parts = from.split("/").filter(Boolean);
  for (const part of path.split("/")) part === ".." ? parts.pop() : part && part !== "." && parts.push(part);
  return `/${parts.join("/")}`;
}
/** The nearest of a prim and its ancestors holding `key`. */
function inherited(prims: Map<string, UsdPrim>, path: string, key: string): { prim: UsdPrim; prop: UsdProperty } | undefined {
  for (let at = path; at; at = at.slice(0, at.lastIndexOf("/"))) {
    const prim = prims.get(at), prop = prim?.properties.get(key);
    if (prim && prop) return { prim, prop };
  }
  return undefined;
}
const tokenList = (v: UsdValue | undefined, what: string): string[] => {
  if (v === undefined || v === null) return [];
  budget(Array.isArray(v) && v.every((t) => typeof t === "string"), `${what} is not a list of tokens`);
  return v as string[];
};

interface ReadSkeleton {
  id: number;
  name: string;
  joints: number[];
  paths: string[];
  /** Skeleton-space bind matrix per joint (column form, metres). */
  bind: Matrix4[];
  blendShapes: string[];
  weights?: Vec;
  weightSamples?: { times: number[]; values: Vec[] };
}

export class SkelReader {
  private skeletons = new Map<string, ReadSkeleton>();
  private meshes: { p: UsdPrim; node: number; read: ReadMesh }[] = [];
  private skinIndex = new Map<string, number>();
  private filled = new Set<number>();

  constructor(private prims: Map<string, UsdPrim>, private scene: InterchangeScene, private mpu: number, private tcps: number, private warn: (m: string) => void) {}

  /** Makes nodes of a Skeleton prim's joints under `parent` (roots turned by `rootTurn`), and their keys. */
  readSkeleton(p: UsdPrim, parent: number | null, rootTurn: Matrix4 | null): void {
    const what = `usd: skeleton "${kilnName(p) ?? p.name}"`;
    const paths = tokenList(p.properties.get("joints")?.value, `${what}: joints`);
    const count = paths.length;
    budget(new Set(paths).size === count, `${what}: joints are not unique paths`);
    const names = tokenList(p.properties.get("jointNames")?.value, `${what}: jointNames`);
    const matrices = (key: string): Matrix4[] | undefined => {
      const v = p.properties.get(key)?.value;
      if (v === undefined || v === null) return undefined;
      const a = vec(v);
      budget(a !== undefined && a.length === 16 * count, `${what}: ${key} holds ${a?.length ?? 0} numbers for ${count} joints (16 each)`);
      budget(finite(a), `${what}: ${key} has a number that is not finite`);
      return Array.from({ length: count }, (_, k) => {
        const m = new Matrix4().fromArray(a, 16 * k); // USD rows (row vectors) are three's columns
        for (const e of [12, 13, 14]) m.elements[e] *= this.mpu;
        return m;
      });
    };
    const bind = matrices("bindTransforms");
    let rest = matrices("restTransforms");
    const index = new Map(paths.map((path, k) => [path, k]));
    const parentOf = paths.map((path) => index.get(path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "") ?? -1);
    if (!rest) {
      if (count) this.warn(`${what}: no restTransforms; the rest pose is taken from bindTransforms`);
      rest = paths.map((_, k) => (bind ? (parentOf[k] >= 0 ? bind[parentOf[k]].clone().invert().multiply(bind[k]) : bind[k].clone()) : new Matrix4()));
    }
    const first = this.scene.nodes.length;
    const jointProperties = (p.metadata.customData as UsdDict | undefined)?.kilnJointUserProperties;
    paths.forEach((path, k) => {
      const m = rest![k].clone();
      const root = parentOf[k] < 0;
      if (root && rootTurn) m.premultiply(rootTurn);
      const name = names[k] ?? path.slice(path.lastIndexOf("/") + 1);
      const extras = readUserProperties(jointProperties, path, `joint "${name}"`, this.warn);
      this.scene.nodes.push({ name, parent: root ? parent : first + parentOf[k], ...decomposeTrs(m), ...(extras ? { extras } : {}) });
    });
    const joints = paths.map((_, k) => first + k);
    // Without bindTransforms, joints bind at rest (skeleton space): parents first, by path depth, without recursion.
    const world: Matrix4[] = [];
    if (!bind) {
      const byDepth = paths.map((path, k) => [path.split("/").length, k]).sort((a, b) => a[0] - b[0]);
      for (const [, k] of byDepth) world[k] = parentOf[k] >= 0 ? world[parentOf[k]].clone().multiply(rest[k]) : rest[k].clone();
    }
    const skel: ReadSkeleton = { id: this.skeletons.size, name: kilnName(p) ?? p.name, joints, paths, bind: bind ?? world, blendShapes: [] };
    this.skeletons.set(p.path, skel);
    const source = inherited(this.prims, p.path, "skel:animationSource");
    const animPath = source && target(source.prim, source.prop);
    if (!animPath) return;
    const anim = this.prims.get(animPath);
    if (anim?.type !== "SkelAnimation") return this.warn(`${what}: animation source ${animPath} is not a SkelAnimation; not read`);
    this.readAnimation(anim, skel, parentOf, rootTurn, what);
  }

  private readAnimation(anim: UsdPrim, skel: ReadSkeleton, parentOf: number[], rootTurn: Matrix4 | null, what: string): void {
    const listed = tokenList(anim.properties.get("joints")?.value, `${what}: animation joints`);
    const index = new Map(skel.paths.map((path, k) => [path, k]));
    const joints = listed.map((j) => index.get(j) ?? -1);
    for (const [k, j] of joints.entries()) if (j < 0) this.warn(`${what}: animated joint "${listed[k]}" is not in the skeleton; its keys dropped`);
    const channels = [["translations", 3], ["rotations", 4], ["scales", 3]] as const;
    const checked = (v: UsdValue | undefined, key: string, width: number, n: number): Vec => {
      const a = vec(v);
      budget(a !== undefined && a.length === width * n, `${what}: animation ${key} holds ${a?.length ?? 0} numbers for ${n} ${key === "blendShapeWeights" ? "blend shapes" : "joints"} (${width} each)`);
      budget(finite(a), `${what}: animation ${key} has a number that is not finite`);
      return a;
    };
    const tracks = channels.map(([key, width]) => {
      const prop = anim.properties.get(key);
      if (!prop) return undefined;
      const samples = prop.timeSamples && [...prop.timeSamples.entries()].sort((a, b) => a[0] - b[0]);
      if (samples?.length) {
        budget(samples.length <= LIMITS.keyframes, `${what}: animation ${key} has ${samples.length} time samples; at most ${LIMITS.keyframes} are read`);
        budget(samples.every(([t]) => Number.isFinite(t)), `${what}: animation ${key} has a time that is not finite`);
        return { times: samples.map(([t]) => t / this.tcps), values: samples.map(([, v]) => checked(v, key, width, listed.length)) };
      }
      return prop.value === undefined || prop.value === null ? undefined : { constant: checked(prop.value, key, width, listed.length) };
    });
    /** A joint's value of one channel in interchange terms (metres, [x, y, z, w], turned roots). */
    const convert = (c: number, v: Vec, j: number): number[] => {
      const root = parentOf[j] < 0 && rootTurn;
      if (c === 0) {
        const t = new Vector3(v[0] * this.mpu, v[1] * this.mpu, v[2] * this.mpu);
        if (root) t.applyMatrix4(rootTurn);
        return [t.x, t.y, t.z];
      }
      if (c === 1) {
        const q = new Quaternion(v[1], v[2], v[3], v[0]);
        budget(q.length() > 0, `${what}: animation rotations hold a zero quaternion`);
        q.normalize();
        if (root) q.premultiply(new Quaternion().setFromRotationMatrix(rootTurn));
        return [q.x, q.y, q.z, q.w];
      }
      return [v[0], v[1], v[2]];
    };
    const fields = ["translation", "rotation", "scale"] as const;
    const keyed = ["translations", "rotations", "scales"] as const;
    joints.forEach((j, k) => {
      if (j < 0) return;
      const node = this.scene.nodes[skel.joints[j]];
      const sampled: { c: number; times: number[]; values: number[][] }[] = [];
      tracks.forEach((tr, c) => {
        if (!tr) return;
        const width = channels[c][1];
        const at = (v: Vec) => convert(c, v.slice(width * k, width * (k + 1)), j);
        // An unsampled channel of an animated joint poses it for good: that is the node's value.
        if (tr.constant) (node[fields[c]] as number[]) = at(tr.constant);
        else sampled.push({ c, times: tr.times!, values: tr.values!.map(at) });
      });
      if (!sampled.length) return;
      const times = [...new Set(sampled.flatMap((s) => s.times))].sort((a, b) => a - b);
      const a: InterchangeAnimation = { node: skel.joints[j], times };
      for (const s of sampled) (a[keyed[s.c]] as number[][]) = times.map((t) => sample(s, t, s.c === 1));
      this.scene.animations.push(a);
    });
    skel.blendShapes = tokenList(anim.properties.get("blendShapes")?.value, `${what}: animation blendShapes`);
    const weights = anim.properties.get("blendShapeWeights");
    if (weights?.value !== undefined && weights.value !== null) skel.weights = checked(weights.value, "blendShapeWeights", 1, skel.blendShapes.length);
    const samples = weights?.timeSamples && [...weights.timeSamples.entries()].sort((a, b) => a[0] - b[0]);
    budget((samples?.length ?? 0) <= LIMITS.keyframes, `${what}: animation blendShapeWeights has ${samples?.length} time samples; at most ${LIMITS.keyframes} are read`);
    if (samples?.length) skel.weightSamples = { times: samples.map(([t]) => t / this.tcps), values: samples.map(([, v]) => checked(v, "blendShapeWeights", 1, skel.blendShapes.length)) };
  }

  /** Notes a Mesh prim read for `node`; its skin and blend shapes are resolved by finish(). */
  noteMesh(p: UsdPrim, node: number, read: ReadMesh): void {
    const apis = p.metadata.apiSchemas;
    const bound = (Array.isArray(apis) && apis.includes("SkelBindingAPI")) || [...p.properties.keys()].some((k) => k.startsWith("skel:") || k.startsWith("primvars:skel:"));
    if (bound) this.meshes.push({ p, node, read });
  }

  /** Skins and morph targets of every noted mesh, once all Skeletons have their nodes. */
  finish(): void {
    for (const { p, node, read } of this.meshes) {
      const what = `usd: mesh "${kilnName(p) ?? p.name}"`;
      const binding = inherited(this.prims, p.path, "skel:skeleton");
      const skelPath = binding && target(binding.prim, binding.prop);
      const skel = skelPath === undefined ? undefined : this.skeletons.get(skelPath);
      if (!skel) {
        this.warn(`${what}: skin and blend shapes dropped (${skelPath === undefined ? "no skel:skeleton" : `skeleton ${skelPath} not read`})`);
        continue;
      }
      const fresh = !this.filled.has(read.mesh);
      this.filled.add(read.mesh);
      this.readSkin(p, node, read, skel, what, fresh);
      this.readBlendShapes(p, node, read, skel, what, fresh);
    }
  }

  private readSkin(p: UsdPrim, node: number, read: ReadMesh, skel: ReadSkeleton, what: string, fresh: boolean): void {
    const indicesProp = p.properties.get("primvars:skel:jointIndices"), weightsProp = p.properties.get("primvars:skel:jointWeights");
    if (!indicesProp && !weightsProp) return;
    budget(!!indicesProp && !!weightsProp, `${what}: jointIndices and jointWeights come together`);
    const indices = vec(indicesProp!.value) ?? [], weights = vec(weightsProp!.value) ?? [];
    const size = indicesProp!.metadata.elementSize ?? 1;
    budget(typeof size === "number" && Number.isInteger(size) && size >= 1, `${what}: jointIndices elementSize ${String(size)} is not a positive whole number`);
    budget(weightsProp!.metadata.elementSize === undefined || weightsProp!.metadata.elementSize === size, `${what}: jointWeights elementSize differs from jointIndices'`);
    const interp = String(indicesProp!.metadata.interpolation ?? "vertex");
    budget(interp === "vertex" || interp === "constant", `${what}: ${interp} joint influences (only vertex and constant exist)`);
    const needed = interp === "constant" ? size : read.points * size;
    budget(indices.length === weights.length, `${what}: ${indices.length} joint indices but ${weights.length} joint weights`);
    budget(indices.length >= needed, `${what}: ${interp} joint influences of elementSize ${size} need ${needed} values but the file holds ${indices.length}`);
    if (p.properties.get("primvars:skel:skinningMethod")?.value === "dualQuaternion") this.warn(`${what}: dual quaternion skinning read as linear blend skinning`);
    const order = p.properties.get("skel:joints")?.value;
    const skinPaths = order === undefined || order === null ? skel.paths : tokenList(order, `${what}: skel:joints`);
    const byPath = new Map(skel.paths.map((path, k) => [path, k]));
    const jointAt = skinPaths.map((path) => {
      const k = byPath.get(path);
      budget(k !== undefined, `${what}: skel:joints names "${path}", not a joint of its skeleton`);
      return k;
    });
    budget(jointAt.length <= 65536, `${what}: more than 65536 joints`);
    for (let k = 0; k < needed; k++) {
      budget(Number.isInteger(indices[k]) && indices[k] >= 0 && indices[k] < jointAt.length, `${what}: joint index ${indices[k]} is outside its ${jointAt.length} joints`);
      budget(Number.isFinite(weights[k]), `${what}: a joint weight is not finite`);
    }
    // Inverse bind matrices: (G⁻¹·B)⁻¹ = B⁻¹·G in column form, G the mesh's bind-time transform.
    const g = matrix(p.properties.get("primvars:skel:geomBindTransform")?.value);
    const geom = new Matrix4();
    if (g) {
      budget(g.length === 16 && finite(g), `${what}: geomBindTransform is not 16 finite numbers`);
      geom.fromArray(g);
      for (const e of [12, 13, 14]) geom.elements[e] *= this.mpu;
    }
    const key = `${skel.id}|${skinPaths.join("\n")}|${geom.elements.join(",")}`;
    let skin = this.skinIndex.get(key);
    if (skin === undefined) {
      const ibm = new Float32Array(16 * jointAt.length);
      jointAt.forEach((j, k) => ibm.set(skel.bind[j].clone().invert().multiply(geom).elements, 16 * k));
      skin = (this.scene.skins ??= []).push({ name: skel.name, joints: jointAt.map((j) => skel.joints[j]), inverseBindMatrices: ibm }) - 1;
      this.skinIndex.set(key, skin);
    }
    this.scene.nodes[node].skin = skin;
    if (!fresh) return;
    const mesh = this.scene.meshes[read.mesh];
    const count = mesh.positions.length / 3;
    const joints = new Uint16Array(count * 4), wts = new Float32Array(count * 4);
    let over = 0;
    const order4 = new Array<number>(size);
    for (let v = 0; v < count; v++) {
      const base = interp === "constant" ? 0 : (read.pointOf ? read.pointOf[v] : v) * size;
      for (let k = 0; k < size; k++) order4[k] = k;
      // The 4 strongest influences, renormalised when any weight is left out.
      if (size > 4) order4.sort((a, b) => weights[base + b] - weights[base + a]);
      let kept = 0, total = 0;
      for (let k = 0; k < size; k++) total += weights[base + k];
      for (let k = 0; k < Math.min(4, size); k++) (joints[4 * v + k] = indices[base + order4[k]]), (wts[4 * v + k] = weights[base + order4[k]]), (kept += weights[base + order4[k]]);
      if (size > 4 && kept !== total) {
        over++;
        if (kept > 0) for (let k = 0; k < 4; k++) wts[4 * v + k] /= kept;
      }
    }
    if (over) this.warn(`${what}: ${over} vertices have more than 4 joint weights; the 4 strongest kept, renormalised`);
    mesh.joints = joints;
    mesh.weights = wts;
  }

  private readBlendShapes(p: UsdPrim, node: number, read: ReadMesh, skel: ReadSkeleton, what: string, fresh: boolean): void {
    const channels = tokenList(p.properties.get("skel:blendShapes")?.value, `${what}: skel:blendShapes`);
    if (!channels.length) return;
    const targetsValue = p.properties.get("skel:blendShapeTargets")?.value;
    const targets = (Array.isArray(targetsValue) ? targetsValue : targetsValue ? [targetsValue] : []) as UsdPath[];
    budget(targets.length === channels.length, `${what}: ${channels.length} blend shapes but ${targets.length} blend shape targets`);
    const mesh = this.scene.meshes[read.mesh];
    const count = mesh.positions.length / 3;
    const shapes = targets.map((t) => this.prims.get(resolve(p.path, t.path ?? "")));
    if (fresh) {
      mesh.morphTargets = shapes.map((shape, k): InterchangeMorphTarget => {
        budget(shape?.type === "BlendShape", `${what}: blend shape target ${targets[k].path} is not a BlendShape prim`);
        const name = `${what}: blend shape "${shape.name}"`;
        const offsets = vec(shape.properties.get("offsets")?.value) ?? [];
        const normals = vec(shape.properties.get("normalOffsets")?.value);
        const points = vec(shape.properties.get("pointIndices")?.value);
        const n = points ? points.length : read.points;
        budget(offsets.length === 3 * n, `${name}: offsets hold ${offsets.length} numbers for ${n} points (3 each)`);
        budget(!normals || normals.length === 3 * n, `${name}: normalOffsets hold ${normals?.length} numbers for ${n} points (3 each)`);
        budget(finite(offsets) && (!normals || finite(normals)), `${name}: an offset is not finite`);
        if (points) for (const i of points) budget(Number.isInteger(i) && i >= 0 && i < read.points, `${name}: pointIndices refers to point ${i} of ${read.points}`);
        if ([...shape.properties.keys()].some((key) => key.startsWith("inbetweens:"))) this.warn(`${name}: in-between shapes dropped`);
        const perPoint = new Float32Array(read.points * 3), perPointNormals = normals && new Float32Array(read.points * 3);
        for (let e = 0; e < n; e++) {
          const pt = points ? points[e] : e;
          for (let c = 0; c < 3; c++) (perPoint[3 * pt + c] = offsets[3 * e + c] * this.mpu), perPointNormals && (perPointNormals[3 * pt + c] = normals![3 * e + c]);
        }
        const byVertex = (a: Float32Array) => {
          if (!read.pointOf) return a;
          const out = new Float32Array(count * 3);
          for (let v = 0; v < count; v++) out.set(a.subarray(3 * read.pointOf[v], 3 * read.pointOf[v] + 3), 3 * v);
          return out;
        };
        return { name: kilnName(shape) ?? shape.name, positions: byVertex(perPoint), ...(perPointNormals ? { normals: byVertex(perPointNormals) } : {}) };
      });
    }
    // Weights are the bound animation's, by channel name; a channel it lacks weighs 0.
    const at = channels.map((c) => skel.blendShapes.indexOf(c));
    const pick = (w: Vec | undefined) => at.map((k) => (k >= 0 && w ? w[k] : 0));
    const defaults = pick(skel.weights);
    const own = (p.metadata.customData as UsdDict | undefined)?.kilnMorphWeights;
    if (fresh) mesh.morphWeights = vec(own)?.length === channels.length && finite(vec(own)!) ? vec(own)! : defaults;
    if (defaults.some((w, k) => w !== mesh.morphWeights![k])) this.scene.nodes[node].morphWeights = defaults;
    if (skel.weightSamples) this.scene.animations.push({ node, times: skel.weightSamples.times, weights: skel.weightSamples.values.map(pick) });
  }
}
