/**
 * Welding: merges vertices whose every attribute (position, normal, and any UV sets, colours,
 * skin weights and morph offsets) is bit-for-bit equal, so a mesh a reader delivered as one
 * vertex per triangle corner (three's FBXLoader does) is stored indexed again: six times fewer
 * vertices for a typical smooth mesh, and a six times smaller record. Lossless: only identical
 * vertices merge, so every triangle keeps exactly its corners and attributes.
 */
import type { FullMesh } from "./mesh-records";

type Attr = { bits: Uint32Array | Uint16Array; width: number };

/** Every per-vertex array of a mesh with its width, as bit patterns (float32 read as uint32). */
function attributes(mesh: FullMesh): { attrs: Attr[]; rebuild: (keep: number[]) => FullMesh } {
  const arrays: { get: (m: FullMesh) => Float32Array | Uint16Array | undefined; set: (m: FullMesh, a: Float32Array | Uint16Array) => void; width: number }[] = [
    { get: (m) => m.positions, set: (m, a) => (m.positions = a as Float32Array), width: 3 },
    { get: (m) => m.normals, set: (m, a) => (m.normals = a as Float32Array), width: 3 },
    ...(mesh.uvs ?? []).map((_, k) => ({ get: (m: FullMesh) => m.uvs![k], set: (m: FullMesh, a: Float32Array | Uint16Array) => (m.uvs![k] = a as Float32Array), width: 2 })),
    { get: (m) => m.colors, set: (m, a) => (m.colors = a as Float32Array), width: 4 },
    { get: (m) => m.joints, set: (m, a) => (m.joints = a as Uint16Array), width: 4 },
    { get: (m) => m.weights, set: (m, a) => (m.weights = a as Float32Array), width: 4 },
    ...(mesh.morphTargets ?? []).flatMap((_, k) => [
      { get: (m: FullMesh) => m.morphTargets![k].positions, set: (m: FullMesh, a: Float32Array | Uint16Array) => (m.morphTargets![k].positions = a as Float32Array), width: 3 },
      { get: (m: FullMesh) => m.morphTargets![k].normals, set: (m: FullMesh, a: Float32Array | Uint16Array) => (m.morphTargets![k].normals = a as Float32Array), width: 3 },
    ]),
  ];
  const present = arrays.filter((a) => a.get(mesh));
  const attrs = present.map((a) => {
    const src = a.get(mesh)!;
    return { bits: src instanceof Uint16Array ? src : new Uint32Array(src.buffer, src.byteOffset, src.length), width: a.width };
  });
  const rebuild = (keep: number[]): FullMesh => {
    const out: FullMesh = { ...mesh, uvs: mesh.uvs && [...mesh.uvs], morphTargets: mesh.morphTargets?.map((t) => ({ ...t })) };
    if (!mesh.uvs) delete out.uvs;
    if (!mesh.morphTargets) delete out.morphTargets;
    for (const a of present) {
      const src = a.get(mesh)!;
      const dst = new (src.constructor as Float32ArrayConstructor | Uint16ArrayConstructor)(keep.length * a.width);
      keep.forEach((v, i) => dst.set(src.subarray(v * a.width, (v + 1) * a.width), i * a.width));
      a.set(out, dst);
    }
    return out;
  };
  return { attrs, rebuild };
}

/** The mesh with identical vertices merged (the same object when nothing merges). */
export function weld<M extends FullMesh>(mesh: M): M {
  const count = mesh.positions.length / 3;
  if (count < 2) return mesh;
  const { attrs, rebuild } = attributes(mesh);
  let size = 1;
  while (size < count * 2) size <<= 1;
  const table = new Int32Array(size).fill(-1); // slot → index of the first vertex with that key
  const remap = new Uint32Array(count);
  const keep: number[] = [];
  const equal = (a: number, b: number) => {
    for (const { bits, width } of attrs) for (let k = 0; k < width; k++) if (bits[a * width + k] !== bits[b * width + k]) return false;
    return true;
  };
  for (let v = 0; v < count; v++) {
    let h = 2166136261;
    for (const { bits, width } of attrs) for (let k = 0; k < width; k++) h = Math.imul(h ^ bits[v * width + k], 16777619);
    let slot = (h >>> 0) & (size - 1);
    for (;;) {
      const first = table[slot];
      if (first === -1) {
        table[slot] = v;
        remap[v] = keep.push(v) - 1;
        break;
      }
      if (equal(first, v)) {
        remap[v] = remap[first];
        break;
      }
      slot = (slot + 1) & (size - 1);
    }
  }
  if (keep.length === count) return mesh;
  const out = rebuild(keep) as M;
  const indices = new Uint32Array(mesh.indices.length);
  for (let i = 0; i < indices.length; i++) indices[i] = remap[mesh.indices[i]];
  out.indices = indices;
  return out;
}
