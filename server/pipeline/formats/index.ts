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
import { assetDataWarnings, type DecodeResult, type EncodeResult, type InterchangeNode, type InterchangeScene, type TransferFormat } from "./interchange";
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
 * Issue 15's asset data each writer carries (assetDataWarnings' names); the rest is stripped
 * before writing and named in a warning. glTF carries everything.
 */
const CARRIES: Record<Exclude<TransferFormat, "gltf">, ReadonlySet<string>> = {
  fbx: new Set(["UV sets", "vertex colours", "material slots", "textures", "emissive colour", "custom properties", "skin weights", "skins", "morph targets", "morph weight animation"]),
  obj: new Set(["UV sets", "vertex colours", "material slots", "textures", "emissive colour"]),
  usd: new Set(["UV sets", "vertex colours", "material slots", "textures", "emissive colour", "alpha cutoff", "double-sided flag", "custom properties", "skin weights", "skins", "morph targets", "morph weight animation"]),
};

/**
 * Writes `scene` in `format`. Files are named `<baseName><extension>`; `warnings` lists everything
 * the format could not carry. Throws if the scene is structurally invalid.
 */
export async function encode(format: TransferFormat, scene: InterchangeScene, baseName: string): Promise<EncodeResult> {
  if (format === "gltf") return CODECS[format].encode(scene, baseName);
  const carries = CARRIES[format];
  const result = await CODECS[format].encode(stripAssetData(scene, carries), baseName);
  return { ...result, warnings: [...assetDataWarnings(scene, format, carries), ...result.warnings] };
}

/** The scene without the asset data a writer cannot carry: without slots, a node keeps its first slot's material. */
function stripAssetData(scene: InterchangeScene, carries: ReadonlySet<string>): InterchangeScene {
  const has = (what: string) => carries.has(what);
  return {
    nodes: scene.nodes.map(({ materials, skin, morphWeights, extras, ...rest }) => {
      const n: InterchangeNode = {
        ...rest,
        ...(extras && has("custom properties") ? { extras } : {}),
        ...(skin !== undefined && has("skins") ? { skin } : {}),
        ...(morphWeights && has("morph targets") ? { morphWeights } : {}),
      };
      if (has("material slots") && materials) return { ...n, materials };
      const first = materials?.find((m) => m !== null);
      return first === undefined || first === null ? n : { ...n, material: first };
    }),
    meshes: scene.meshes.map(({ name, positions, normals, indices, uvs, colors, groups, extras, joints, weights, morphTargets, morphWeights }) => ({
      name, positions, normals, indices,
      ...(has("custom properties") && extras ? { extras } : {}),
      ...(has("UV sets") && uvs ? { uvs } : {}),
      ...(has("vertex colours") && colors ? { colors } : {}),
      ...(has("material slots") && groups ? { groups } : {}),
      ...(has("skin weights") && joints && weights ? { joints, weights } : {}),
      ...(has("morph targets") && morphTargets ? { morphTargets, ...(morphWeights ? { morphWeights } : {}) } : {}),
    })),
    materials: scene.materials.map(({ name, color, metallic, roughness, textures, emissive, alphaMode, alphaCutoff, doubleSided, extras }) => ({
      name, color, metallic, roughness,
      ...(has("custom properties") && extras ? { extras } : {}),
      ...(has("textures") && textures ? { textures } : {}),
      ...(has("emissive colour") && emissive ? { emissive } : {}),
      ...(has("alpha cutoff") && alphaMode ? { alphaMode, ...(alphaCutoff !== undefined ? { alphaCutoff } : {}) } : {}),
      ...(has("double-sided flag") && doubleSided ? { doubleSided } : {}),
    })),
    ...(has("textures") && scene.images ? { images: scene.images } : {}),
    ...(has("skins") && scene.skins ? { skins: scene.skins } : {}),
    animations: scene.animations.flatMap(({ weights, ...a }) => {
      const kept: InterchangeScene["animations"][number] = has("morph weight animation") && weights ? { ...a, weights } : a;
      return kept.translations || kept.rotations || kept.scales || kept.weights ? [kept] : [];
    }),
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
