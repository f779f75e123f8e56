/**
 * Reading and writing the arrays of MeshRecords (see MeshRecord for the stored form). The only
 * place that knows the encoding, so the renderer, modifiers and exporters all see typed arrays.
 *
 * Uses the Buffer global for base64: it is native and an order of magnitude faster than
 * atob/btoa on tens of megabytes, and every caller of the scene core runs in Node. It is the one
 * Node global the core touches (purity.test.ts allows it here only); it does no I/O.
 */
import type { MeshData } from "./primitives";
import type { MeshRecord, StoredArray } from "./types";

// Stored bytes are little-endian; typed arrays use the platform's order, so refuse any other.
if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1) throw new Error("kiln: mesh records need a little-endian platform");

/** Base64 of a typed array's bytes. */
export function storeArray(a: Float32Array | Uint32Array | Uint16Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
}

/** Bytes a base64 string decodes to, without decoding it. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor(b64.length / 4) * 3 - padding;
}

function loadArray<T extends Float32Array | Uint32Array | Uint16Array>(stored: StoredArray, Type: { new (n: number): T; from(a: number[]): T; BYTES_PER_ELEMENT: number }): T {
  if (typeof stored !== "string") return Type.from(stored);
  const length = decodedLength(stored);
  const size = Type.BYTES_PER_ELEMENT;
  if (!Number.isInteger(length / size)) throw new Error(`kiln: corrupt mesh record: ${stored.length} base64 characters are not whole ${size}-byte values`);
  // Decoded straight into the typed array's own (aligned) buffer.
  const out = new Type(length / size);
  const written = Buffer.from(out.buffer).write(stored, "base64");
  if (written !== length) throw new Error("kiln: corrupt mesh record: not valid base64");
  return out;
}

/** The typed arrays of a stored mesh (fresh copies, safe to mutate). */
export function meshDataOf(record: MeshRecord): MeshData {
  return { positions: loadArray(record.positions, Float32Array), normals: loadArray(record.normals, Float32Array), indices: loadArray(record.indices, Uint32Array) };
}

/** Triangles of a stored mesh, without decoding it. */
export function meshTriangles(record: MeshRecord): number {
  const i = record.indices;
  return typeof i === "string" ? decodedLength(i) / 12 : i.length / 3;
}

/** The optional vertex data of a mesh (issue 15): UV sets, colours, skin weights, slots, morph targets. */
export interface MeshVertexData {
  uvs?: Float32Array[];
  colors?: Float32Array;
  joints?: Uint16Array;
  weights?: Float32Array;
  groups?: { start: number; count: number }[];
  morphTargets?: { name: string; positions: Float32Array; normals?: Float32Array }[];
  morphWeights?: number[];
}

/** Decodes a stored mesh's optional vertex data (only what the record has). */
export function meshVertexDataOf(record: MeshRecord): MeshVertexData {
  const out: MeshVertexData = {};
  const uvs = [record.uv0, record.uv1].filter((u): u is string => u !== undefined).map((u) => loadArray(u, Float32Array));
  if (uvs.length) out.uvs = uvs;
  if (record.colors !== undefined) out.colors = loadArray(record.colors, Float32Array);
  if (record.joints !== undefined && record.weights !== undefined) Object.assign(out, { joints: loadArray(record.joints, Uint16Array), weights: loadArray(record.weights, Float32Array) });
  if (record.groups) out.groups = record.groups.map((g) => ({ ...g }));
  if (record.morphTargets)
    out.morphTargets = record.morphTargets.map((t) => ({
      name: t.name, positions: loadArray(t.positions, Float32Array), ...(t.normals === undefined ? {} : { normals: loadArray(t.normals, Float32Array) }),
    }));
  if (record.morphWeights) out.morphWeights = [...record.morphWeights];
  return out;
}

/** One UV set of a stored mesh (0 or 1), or undefined when the record has none. */
export function meshUvSet(record: MeshRecord, set: 0 | 1): Float32Array | undefined {
  const stored = set === 1 ? record.uv1 : record.uv0;
  return stored === undefined ? undefined : loadArray(stored, Float32Array);
}

/** What a mesh record carries beyond geometry, as counts, for get_scene and list_objects. */
export function meshSummary(record: MeshRecord) {
  return {
    uv_sets: (record.uv0 !== undefined ? 1 : 0) + (record.uv1 !== undefined ? 1 : 0),
    vertex_colors: record.colors !== undefined,
    skinned: record.joints !== undefined,
    material_slots: record.groups?.length ?? 1,
    morph_targets: record.morphTargets?.map((t, k) => ({ name: t.name, default_weight: record.morphWeights?.[k] ?? 0 })) ?? [],
  };
}
