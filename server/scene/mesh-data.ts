/**
 * Reading and writing the arrays of MeshRecords (see MeshRecord for the stored form). The only
 * place that knows the encoding, so the renderer, modifiers and exporters all see typed arrays.
 *
 * Uses the Buffer global for base64: it is native and an order of magnitude faster than
 * atob/btoa on tens of megabytes, and every caller of the scene core runs in Node.
 */
import type { MeshData } from "./primitives";
import type { MeshRecord, StoredArray } from "./types";

/** Base64 of a typed array's bytes (little-endian on every platform Kiln runs on). */
export function storeArray(a: Float32Array | Uint32Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
}

/** Bytes a base64 string decodes to, without decoding it. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}

function loadArray<T extends Float32Array | Uint32Array>(stored: StoredArray, Type: { new (n: number): T; from(a: number[]): T }): T {
  if (typeof stored !== "string") return Type.from(stored);
  const bytes = Buffer.from(stored, "base64");
  // Copied into a fresh buffer: Buffer may hand back an unaligned slice of its shared pool.
  const out = new Type(bytes.length / 4);
  new Uint8Array(out.buffer).set(bytes);
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
