/**
 * Imported geometry as content-addressed MeshRecords: the id is the SHA-256 of the data, so equal
 * meshes (the same file imported twice, instances) share one record. The arrays are stored in the
 * compact form scene/mesh-data.ts reads back.
 */
import { createHash } from "node:crypto";
import { storeArray } from "../scene/mesh-data";
import type { MeshData } from "../scene/primitives";
import { ids, type MeshRecord } from "../scene/types";

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
  return { type: "mesh", id: ids.mesh(meshHash(mesh)), positions: storeArray(mesh.positions), normals: storeArray(mesh.normals), indices: storeArray(mesh.indices) };
}
