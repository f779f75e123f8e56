/**
 * Imported geometry as content-addressed MeshRecords: the id is the SHA-256 of the data, so equal
 * meshes (the same file imported twice, instances) share one record. The scene core stores plain
 * number arrays (records are JSON); these helpers convert with preallocated loops because
 * `Array.from` on typed arrays is several times slower at a million triangles.
 */
import { createHash } from "node:crypto";
import type { MeshData } from "../scene/primitives";
import { ids, type MeshRecord } from "../scene/types";

function toArray(src: Float32Array | Uint32Array): number[] {
  const out = new Array<number>(src.length);
  for (let i = 0; i < src.length; i++) out[i] = src[i];
  return out;
}

const bytesOf = (a: Float32Array | Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Content hash of a mesh: lengths plus the float32 positions and normals and uint32 indices. */
export function meshHash(mesh: MeshData): string {
  const h = createHash("sha256");
  h.update(`kiln-mesh:${mesh.positions.length}:${mesh.normals.length}:${mesh.indices.length}:`);
  h.update(bytesOf(mesh.positions));
  h.update(bytesOf(mesh.normals));
  h.update(bytesOf(mesh.indices));
  return h.digest("hex");
}

/** The MeshRecord of a mesh, its id derived from the data. */
export function meshRecord(mesh: MeshData): MeshRecord {
  return { type: "mesh", id: ids.mesh(meshHash(mesh)), positions: toArray(mesh.positions), normals: toArray(mesh.normals), indices: toArray(mesh.indices) };
}

/** The typed-array view of a stored mesh. */
export function meshDataOf(record: MeshRecord): MeshData {
  return { positions: new Float32Array(record.positions), normals: new Float32Array(record.normals), indices: new Uint32Array(record.indices) };
}
