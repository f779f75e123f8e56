/**
 * Format dispatch for the asset pipeline: `encode`/`decode` any TransferFormat through the
 * interchange model. See interchange.ts for the model and its conventions.
 */
import { decodeFbx } from "./fbx-read";
import { encodeFbx } from "./fbx";
import { decodeGltf, encodeGltf } from "./gltf";
import { decodeObj, encodeObj } from "./obj";
import { decodeUsd } from "./usd-read";
import { encodeUsd } from "./usd";
import type { DecodeResult, EncodeResult, InterchangeScene, TransferFormat } from "./interchange";
import { checkDecodedScene } from "./limits";

export type * from "./interchange";
export { validateScene, worldMatrices } from "./interchange";
export { LIMITS, LimitError } from "./limits";

/** File extensions each format writes, main file first (OBJ also writes its material library). */
export const FORMAT_EXTENSIONS: Record<TransferFormat, readonly string[]> = {
  gltf: [".glb"],
  fbx: [".fbx"],
  obj: [".obj", ".mtl"],
  usd: [".usda"],
};

const CODECS: Record<TransferFormat, { encode: typeof encodeGltf; decode: typeof decodeGltf }> = {
  gltf: { encode: encodeGltf, decode: decodeGltf },
  fbx: { encode: encodeFbx, decode: decodeFbx },
  obj: { encode: encodeObj, decode: decodeObj },
  usd: { encode: encodeUsd, decode: decodeUsd },
};

/**
 * Writes `scene` in `format`. Files are named `<baseName><extension>`; `warnings` lists everything
 * the format could not carry. Throws if the scene is structurally invalid.
 */
export function encode(format: TransferFormat, scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  return CODECS[format].encode(scene, baseName);
}

/**
 * Reads `files[mainName]` (plus any side files it references, e.g. an OBJ's .mtl or a .gltf's
 * buffers, looked up by name in `files`) into the interchange model, checked against the budgets
 * of limits.ts (a LimitError names the one a file broke).
 */
export async function decode(format: TransferFormat, files: Map<string, Uint8Array>, mainName: string): Promise<DecodeResult> {
  const result = await CODECS[format].decode(files, mainName);
  checkDecodedScene(result.scene);
  return result;
}
