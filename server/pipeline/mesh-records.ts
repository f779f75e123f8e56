/**
 * Imported geometry as content-addressed MeshRecords: the id is the SHA-256 of the data, so equal
 * meshes (the same file imported twice, instances) share one record. The arrays are stored in the
 * compact form scene/mesh-data.ts reads back.
 */
import { createHash } from "node:crypto";
import { storeArray, type MeshVertexData } from "../scene/mesh-data";
import type { MeshData } from "../scene/primitives";
import { ids, type ImageRecord, type MeshRecord } from "../scene/types";

const bytesOf = (a: Float32Array | Uint32Array | Uint16Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Geometry plus optional vertex data, as the pipeline hands meshes to the scene. */
export type FullMesh = MeshData & MeshVertexData;

/**
 * Content hash of a mesh: lengths plus the float32 positions and normals and uint32 indices, then
 * (only when present, so meshes without them keep the hashes they always had) a canonical JSON
 * description of the optional data and its bytes.
 */
export function meshHash(mesh: FullMesh): string {
  const h = createHash("sha256");
  h.update(`kiln-mesh:${mesh.positions.length}:${mesh.normals.length}:${mesh.indices.length}:`);
  h.update(bytesOf(mesh.positions));
  h.update(bytesOf(mesh.normals));
  h.update(bytesOf(mesh.indices));
  const extra = optionalArrays(mesh);
  if (extra.length || mesh.groups || mesh.morphWeights) {
    h.update(JSON.stringify({ arrays: extra.map(([k, a]) => [k, a.length]), groups: mesh.groups ?? null, weights: mesh.morphWeights ?? null, targets: mesh.morphTargets?.map((t) => t.name) ?? null }));
    for (const [, a] of extra) h.update(bytesOf(a));
  }
  return h.digest("hex");
}

function optionalArrays(mesh: FullMesh): [string, Float32Array | Uint16Array][] {
  const out: [string, Float32Array | Uint16Array][] = [];
  mesh.uvs?.forEach((uv, k) => out.push([`uv${k}`, uv]));
  if (mesh.colors) out.push(["colors", mesh.colors]);
  if (mesh.joints && mesh.weights) out.push(["joints", mesh.joints], ["weights", mesh.weights]);
  mesh.morphTargets?.forEach((t, k) => (out.push([`target${k}`, t.positions]), t.normals && out.push([`target${k}n`, t.normals])));
  return out;
}

/** The MeshRecord of a mesh, its id derived from the data. */
export function meshRecord(mesh: FullMesh): MeshRecord {
  const record: MeshRecord = { type: "mesh", id: ids.mesh(meshHash(mesh)), positions: storeArray(mesh.positions), normals: storeArray(mesh.normals), indices: storeArray(mesh.indices) };
  if (mesh.uvs?.[0]) record.uv0 = storeArray(mesh.uvs[0]);
  if (mesh.uvs?.[1]) record.uv1 = storeArray(mesh.uvs[1]);
  if (mesh.colors) record.colors = storeArray(mesh.colors);
  if (mesh.joints && mesh.weights) Object.assign(record, { joints: storeArray(mesh.joints), weights: storeArray(mesh.weights) });
  if (mesh.groups) record.groups = mesh.groups.map((g) => ({ start: g.start, count: g.count }));
  if (mesh.morphTargets?.length) {
    record.morphTargets = mesh.morphTargets.map((t) => ({ name: t.name, positions: storeArray(t.positions), ...(t.normals ? { normals: storeArray(t.normals) } : {}) }));
    record.morphWeights = mesh.morphWeights ? [...mesh.morphWeights] : mesh.morphTargets.map(() => 0);
  }
  return record;
}

/** The content-addressed record of an image file. */
export function imageRecord(image: { name: string; mimeType: "image/png" | "image/jpeg"; bytes: Uint8Array }): ImageRecord {
  const hash = createHash("sha256").update(`kiln-image:${image.mimeType}:`).update(image.bytes).digest("hex");
  return { type: "image", id: ids.image(hash), name: image.name, mimeType: image.mimeType, data: Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength).toString("base64") };
}
