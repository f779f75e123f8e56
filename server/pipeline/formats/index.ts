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
import { assetDataWarnings, type DecodeResult, type EncodeResult, type InterchangeScene, type TransferFormat } from "./interchange";
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
export async function encode(format: TransferFormat, scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  // Only glTF writes UVs, colours, slots, textures, skins and morph targets so far; the others
  // write the mesh (first slot's material) and say what they left out.
  if (format === "gltf") return CODECS[format].encode(scene, baseName);
  const result = await CODECS[format].encode(stripAssetData(scene), baseName);
  return { ...result, warnings: [...assetDataWarnings(scene, format), ...result.warnings] };
}

/** The scene without issue 15's asset data, for writers that cannot carry it: slots collapse to the first material. */
function stripAssetData(scene: InterchangeScene): InterchangeScene {
  return {
    nodes: scene.nodes.map(({ materials, skin: _s, morphWeights: _w, extras: _e, ...n }) => {
      const first = materials?.find((m) => m !== null);
      return first === undefined || first === null ? n : { ...n, material: first };
    }),
    meshes: scene.meshes.map(({ name, positions, normals, indices }) => ({ name, positions, normals, indices })),
    materials: scene.materials.map(({ name, color, metallic, roughness }) => ({ name, color, metallic, roughness })),
    animations: scene.animations.flatMap(({ weights: _w, ...a }) => (a.translations || a.rotations || a.scales ? [a] : [])),
  };
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
