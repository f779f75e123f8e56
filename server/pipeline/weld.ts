/**
 * Welding: merges vertices whose position AND normal are bit-for-bit equal, so a mesh a reader
 * delivered as one vertex per triangle corner (three's FBXLoader does) is stored indexed again:
 * six times fewer vertices for a typical smooth mesh, and a six times smaller record. Lossless:
 * only identical vertices merge, so every triangle keeps exactly its corners and normals.
 */
import type { MeshData } from "../scene/primitives";

/** The mesh with identical vertices merged (the same object when nothing merges). */
export function weld(mesh: MeshData): MeshData {
  const count = mesh.positions.length / 3;
  if (count < 2) return mesh;
  const pos = new Uint32Array(mesh.positions.buffer, mesh.positions.byteOffset, count * 3);
  const nor = new Uint32Array(mesh.normals.buffer, mesh.normals.byteOffset, count * 3);
  let size = 1;
  while (size < count * 2) size <<= 1;
  const table = new Int32Array(size).fill(-1); // slot → index of the first vertex with that key
  const remap = new Uint32Array(count);
  const keep: number[] = [];
  const equal = (a: number, b: number) =>
    pos[a * 3] === pos[b * 3] && pos[a * 3 + 1] === pos[b * 3 + 1] && pos[a * 3 + 2] === pos[b * 3 + 2] &&
    nor[a * 3] === nor[b * 3] && nor[a * 3 + 1] === nor[b * 3 + 1] && nor[a * 3 + 2] === nor[b * 3 + 2];
  for (let v = 0; v < count; v++) {
    let h = 2166136261;
    for (let k = 0; k < 3; k++) {
      h = Math.imul(h ^ pos[v * 3 + k], 16777619);
      h = Math.imul(h ^ nor[v * 3 + k], 16777619);
    }
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
  const positions = new Float32Array(keep.length * 3), normals = new Float32Array(keep.length * 3);
  keep.forEach((v, i) => {
    positions.set(mesh.positions.subarray(v * 3, v * 3 + 3), i * 3);
    normals.set(mesh.normals.subarray(v * 3, v * 3 + 3), i * 3);
  });
  const indices = new Uint32Array(mesh.indices.length);
  for (let i = 0; i < indices.length; i++) indices[i] = remap[mesh.indices[i]];
  return { positions, normals, indices };
}
