/**
 * Binary frames of the bridge protocol (docs/bridges.md, "Frames"): a u32 little-endian header
 * length, a JSON header naming the blob and its parts, then the payload. Bulk data (mesh arrays,
 * images) travels this way instead of as base64 inside JSON.
 */
import { z } from "zod";

const range = z.tuple([z.number().int().min(0), z.number().int().min(0)]);
const header = z.object({
  blob: z.string().min(1).max(300),
  kind: z.enum(["mesh", "png"]),
  parts: z.record(z.string(), range).optional(),
});

export interface Blob { key: string; kind: "mesh" | "png"; parts: Record<string, Uint8Array> }

/** Largest JSON header of a binary frame. */
const MAX_HEADER = 64 * 1024;

/** Encodes a blob; `parts` are laid out one after the other in the payload. */
export function encodeBlob(key: string, kind: Blob["kind"], parts: Record<string, Uint8Array>): Buffer {
  let offset = 0;
  const ranges: Record<string, [number, number]> = {};
  for (const [name, bytes] of Object.entries(parts)) {
    ranges[name] = [offset, bytes.byteLength];
    offset += bytes.byteLength;
  }
  const head = Buffer.from(JSON.stringify({ blob: key, kind, parts: ranges }), "utf8");
  const out = Buffer.allocUnsafe(4 + head.length + offset);
  out.writeUInt32LE(head.length, 0);
  head.copy(out, 4);
  let at = 4 + head.length;
  for (const bytes of Object.values(parts)) {
    out.set(bytes, at);
    at += bytes.byteLength;
  }
  return out;
}

/** Decodes a binary frame; throws a sentence naming what is wrong with a malformed one. */
export function decodeBlob(frame: Buffer): Blob {
  if (frame.length < 4) throw new Error("a binary frame is shorter than its header length");
  const length = frame.readUInt32LE(0);
  if (length > MAX_HEADER || 4 + length > frame.length) throw new Error("a binary frame's header length is out of range");
  let parsed: z.infer<typeof header>;
  try {
    parsed = header.parse(JSON.parse(frame.subarray(4, 4 + length).toString("utf8")));
  } catch {
    throw new Error("a binary frame's header is not valid");
  }
  const payload = frame.subarray(4 + length);
  const parts: Record<string, Uint8Array> = {};
  for (const [name, [offset, size]] of Object.entries(parsed.parts ?? { data: [0, payload.length] as [number, number] })) {
    if (offset + size > payload.length) throw new Error(`part "${name}" of blob "${parsed.blob}" runs past the frame`);
    parts[name] = payload.subarray(offset, offset + size);
  }
  return { key: parsed.blob, kind: parsed.kind, parts };
}
