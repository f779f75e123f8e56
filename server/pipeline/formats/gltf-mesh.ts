/**
 * One glTF mesh → one interchange mesh. glTF keeps a material per primitive, each primitive with
 * its own vertex arrays (Blender's exporter) or sharing them (Kiln's writer); the interchange mesh
 * is one vertex array with `groups` of indices, one group per triangle primitive, which is how
 * Blender, Unity and FBX hold material slots. Primitives sharing their vertex accessors share
 * their vertices; otherwise vertices are concatenated. An attribute some primitives lack is filled
 * (UV 0, colour white, normals computed, weight on joint 0), so no triangle is dropped for it.
 */
import type { Accessor, Mesh, Primitive } from "@gltf-transform/core";
import { computeNormals, sequentialIndices, type InterchangeMesh } from "./interchange";

/** Float32 copy of an accessor, dequantising normalised integer storage (KHR_mesh_quantization). */
export function floats(acc: Accessor): Float32Array {
  const arr = acc.getArray();
  if (arr instanceof Float32Array && !acc.getNormalized()) return Float32Array.from(arr);
  const size = acc.getElementSize();
  const out = new Float32Array(acc.getCount() * size);
  const el: number[] = [];
  for (let i = 0; i < acc.getCount(); i++) out.set(acc.getElement(i, el), i * size);
  return out;
}

const KNOWN = new Set(["POSITION", "NORMAL", "TEXCOORD_0", "TEXCOORD_1", "COLOR_0", "JOINTS_0", "WEIGHTS_0"]);

export interface ReadMesh { mesh: InterchangeMesh; materials: (Primitive["getMaterial"] extends () => infer M ? M : never)[] }

/** The interchange mesh of a glTF mesh's triangle primitives (null when it has none). */
export function readGltfMesh(mesh: Mesh, warn: (w: string) => void): ReadMesh | null {
  const name = mesh.getName();
  const prims = mesh.listPrimitives().filter((p, k) => {
    if (p.getMode() === 4 && p.getAttribute("POSITION")) return true;
    warn(`gltf: mesh "${name}" primitive ${k}: non-triangle mode ${p.getMode()} dropped`);
    return false;
  });
  if (prims.length === 0) return null;
  for (const p of prims) for (const s of p.listSemantics()) if (!KNOWN.has(s)) warn(`gltf: mesh "${name}": attribute ${s} dropped`);
  const has = (s: string) => prims.some((p) => p.getAttribute(s));
  const uvSets = has("TEXCOORD_1") ? 2 : has("TEXCOORD_0") ? 1 : 0;
  const skinned = has("JOINTS_0") && has("WEIGHTS_0");
  const targetCount = Math.max(...prims.map((p) => p.listTargets().length));
  if (prims.some((p) => p.listTargets().length !== targetCount)) warn(`gltf: mesh "${name}": primitives disagree on morph targets; missing ones left at rest`);

  // Vertex blocks: one per distinct POSITION accessor, in order of first use.
  const blocks = new Map<Accessor, { base: number; prim: Primitive }>();
  let vertexCount = 0;
  for (const p of prims) {
    const pos = p.getAttribute("POSITION")!;
    if (!blocks.has(pos)) (blocks.set(pos, { base: vertexCount, prim: p }), (vertexCount += pos.getCount()));
  }
  const positions = new Float32Array(vertexCount * 3), normals = new Float32Array(vertexCount * 3);
  const uvs = Array.from({ length: uvSets }, () => new Float32Array(vertexCount * 2));
  const colors = has("COLOR_0") ? new Float32Array(vertexCount * 4).fill(1) : undefined;
  const joints = skinned ? new Uint16Array(vertexCount * 4) : undefined;
  const weights = skinned ? new Float32Array(vertexCount * 4) : undefined;
  const targets = Array.from({ length: targetCount }, () => ({ positions: new Float32Array(vertexCount * 3), normals: new Float32Array(vertexCount * 3) }));
  let computed = false;
  for (const [pos, { base, prim }] of blocks) {
    const n = pos.getCount();
    positions.set(floats(pos), base * 3);
    const nor = prim.getAttribute("NORMAL");
    if (nor && nor.getCount() === n) normals.set(floats(nor), base * 3);
    else computed = true;
    for (let k = 0; k < uvSets; k++) {
      const uv = prim.getAttribute(`TEXCOORD_${k}`);
      if (uv && uv.getCount() === n) uvs[k].set(floats(uv), base * 2);
    }
    const col = prim.getAttribute("COLOR_0");
    if (colors && col && col.getCount() === n) {
      const c = floats(col), size = col.getElementSize();
      for (let v = 0; v < n; v++) for (let ch = 0; ch < size; ch++) colors[(base + v) * 4 + ch] = c[v * size + ch];
    }
    const j = prim.getAttribute("JOINTS_0"), w = prim.getAttribute("WEIGHTS_0");
    if (joints && weights && j && w && j.getCount() === n && w.getCount() === n) {
      const ja = j.getArray()!;
      for (let k = 0; k < n * 4; k++) joints[base * 4 + k] = ja[k];
      weights.set(floats(w), base * 4);
    } else if (weights) for (let v = 0; v < n; v++) weights[(base + v) * 4] = 1;
    prim.listTargets().forEach((t, k) => {
      const tp = t.getAttribute("POSITION"), tn = t.getAttribute("NORMAL");
      if (tp && tp.getCount() === n && k < targetCount) targets[k].positions.set(floats(tp), base * 3);
      if (tn && tn.getCount() === n && k < targetCount) targets[k].normals.set(floats(tn), base * 3);
    });
  }
  const groups: { start: number; count: number }[] = [];
  const parts: Uint32Array[] = [];
  let total = 0;
  for (const p of prims) {
    const { base } = blocks.get(p.getAttribute("POSITION")!)!;
    const idx = p.getIndices();
    const local = idx ? idx.getArray()! : sequentialIndices(p.getAttribute("POSITION")!.getCount());
    const count = local.length - (local.length % 3);
    const out = new Uint32Array(count);
    for (let k = 0; k < count; k++) out[k] = local[k] + base;
    if (count === 0) continue;
    groups.push({ start: total, count });
    parts.push(out);
    total += count;
  }
  const indices = new Uint32Array(total);
  parts.reduce((at, part) => (indices.set(part, at), at + part.length), 0);
  if (computed) {
    warn(`gltf: mesh "${name}": had no normals; smooth normals computed`);
    const smooth = computeNormals(positions, indices);
    for (let k = 0; k < normals.length; k += 3) if (normals[k] === 0 && normals[k + 1] === 0 && normals[k + 2] === 0) normals.set(smooth.subarray(k, k + 3), k);
  }
  const out: InterchangeMesh = { name, positions, normals, indices };
  if (uvSets) out.uvs = uvs;
  if (colors) out.colors = colors;
  if (joints && weights) Object.assign(out, { joints, weights });
  if (groups.length > 1) out.groups = groups;
  if (targetCount) {
    const extras = mesh.getExtras() as { targetNames?: unknown };
    const names = Array.isArray(extras?.targetNames) ? extras.targetNames : [];
    out.morphTargets = targets.map((t, k) => ({ name: typeof names[k] === "string" ? names[k] : `Key ${k + 1}`, positions: t.positions, normals: t.normals }));
    const w = mesh.getWeights();
    out.morphWeights = Array.from({ length: targetCount }, (_, k) => (Number.isFinite(w[k]) ? w[k] : 0));
  }
  const { targetNames: _names, ...rest } = (mesh.getExtras() ?? {}) as Record<string, unknown>;
  if (Object.keys(rest).length) out.extras = rest;
  return { mesh: out, materials: prims.filter((p) => (p.getIndices()?.getCount() ?? p.getAttribute("POSITION")!.getCount()) >= 3).map((p) => p.getMaterial()) };
}
