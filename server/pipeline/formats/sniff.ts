/**
 * What a file really is, from its first bytes: the encoding of the format it was asked to be read
 * as (binary or text glTF, binary or ASCII FBX, OBJ text, USDA text), and the size cap that
 * encoding gets. import_asset looks at the head before reading the file, so a file that does not
 * start like its format (600 MB of zeros imported with `format: "fbx"`) is refused after reading
 * 64 KiB, and each encoding gets the cap its reader can afford, whatever the file's extension.
 */
import type { TransferFormat } from "./interchange";
import { LIMITS } from "./limits";

/** How much of a file is looked at. */
export const HEAD_BYTES = 64 * 1024;

export type Encoding = "glb" | "gltf-json" | "fbx-binary" | "fbx-ascii" | "obj" | "usda";

/** The file's encoding, its size cap and how the cap is named in messages. */
export interface Sniffed { encoding: Encoding; cap: number; capName: string }

/** Why a file does not start like `format` (a sentence's end), that it is binary USD, or a GLB's JSON chunk size past the text cap. */
export type Refusal = { mismatch: string } | { usdc: true } | { jsonChunk: number };

const TEXT = "text formats (OBJ, USDA, .gltf)";
const FBX_MAGIC = "Kaydara FBX Binary  \0";
const latin1 = (b: Uint8Array, from: number, to: number) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("latin1", from, Math.min(to, b.length));

/** Offset of the first NUL byte, or -1: text formats never hold one; a sparse or binary file does at once. */
const firstNul = (head: Uint8Array) => head.indexOf(0);

/**
 * Sniffs `head` (the first HEAD_BYTES of a file of `size` bytes) as `format`. `finalLength`: the
 * file's size is known here, so a GLB whose header declares another length is refused too.
 */
export function sniff(format: TransferFormat, head: Uint8Array, size: number): Sniffed | Refusal {
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const nul = firstNul(head);
  const binary = `holds binary data (a NUL byte at offset ${nul})`;
  if (format === "usd") {
    if (latin1(head, 0, 8) === "PXR-USDC") return { usdc: true };
    if (latin1(head, 0, 5) !== "#usda") return { mismatch: "does not start with the \"#usda\" header of a USDA file" };
    if (nul >= 0) return { mismatch: binary };
    return { encoding: "usda", cap: LIMITS.textFileBytes, capName: TEXT };
  }
  if (format === "obj") {
    if (nul >= 0) return { mismatch: `${binary}; an OBJ file is text` };
    return { encoding: "obj", cap: LIMITS.textFileBytes, capName: TEXT };
  }
  if (format === "gltf") {
    if (latin1(head, 0, 4) === "glTF") {
      if (head.length < 12) return { mismatch: "ends inside its 12-byte GLB header" };
      const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
      const version = view.getUint32(4, true), declared = view.getUint32(8, true);
      if (version !== 2) return { mismatch: `is GLB version ${version}; only version 2 is read` };
      if (declared !== size) return { mismatch: `declares ${declared} bytes in its GLB header but has ${size}` };
      // The JSON chunk is decoded to one string and parsed: it gets the text cap, as a .gltf does.
      const json = head.length >= 20 ? view.getUint32(12, true) : 0;
      // (A chunk declared beyond the file is the reader's to name: gltf-budget.ts.)
      if (json > LIMITS.textFileBytes && 20 + json <= size) return { jsonChunk: json };
      return { encoding: "glb", cap: LIMITS.binaryFileBytes, capName: "binary files (GLB, FBX)" };
    }
    let at = bom;
    while (at < head.length && (head[at] === 32 || head[at] === 9 || head[at] === 10 || head[at] === 13)) at++;
    if (head[at] !== 123) return { mismatch: "starts neither with the \"glTF\" magic of a GLB nor with the \"{\" of glTF JSON" };
    if (nul >= 0) return { mismatch: binary };
    return { encoding: "gltf-json", cap: LIMITS.textFileBytes, capName: TEXT };
  }
  if (latin1(head, 0, FBX_MAGIC.length) === FBX_MAGIC) return { encoding: "fbx-binary", cap: LIMITS.binaryFileBytes, capName: "binary files (GLB, FBX)" };
  if (nul >= 0) return { mismatch: `starts neither with the "Kaydara FBX Binary" magic of a binary FBX nor as ASCII FBX text (it ${binary})` };
  if (!latin1(head, 0, HEAD_BYTES).includes("FBXVersion")) return { mismatch: "is neither a binary FBX (no \"Kaydara FBX Binary\" magic) nor an ASCII FBX (no FBXVersion in its header)" };
  return { encoding: "fbx-ascii", cap: LIMITS.fbxTextBytes, capName: "ASCII FBX files" };
}
