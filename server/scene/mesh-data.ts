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
export function storeArray(a: Float32Array | Uint32Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
}

/** Bytes a base64 string decodes to, without decoding it. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor(b64.length / 4) * 3 - padding;
}

function loadArray<T extends Float32Array | Uint32Array>(stored: StoredArray, Type: { new (n: number): T; from(a: number[]): T }): T {
  if (typeof stored !== "string") return Type.from(stored);
  const length = decodedLength(stored);
  if (!Number.isInteger(length / 4)) throw new Error(`kiln: corrupt mesh record: ${stored.length} base64 characters are not whole 4-byte values`);
  // Decoded straight into the typed array's own (aligned) buffer.
  const out = new Type(length / 4);
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
