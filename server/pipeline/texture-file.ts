/**
 * Image files named by create_material's texture slots: read from where import_asset may read
 * (the project folder and <KILN_HOME>/assets, symlinks resolved, the rest of KILN_HOME refused),
 * PNG or JPEG only (recognised by their signature, never decoded), at most 64 MiB, and turned
 * into content-addressed image records.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { invalid, notFound } from "../errors";
import type { Kiln } from "../runtime";
import type { ImageRecord } from "../scene/types";
import { allowedRoots, resolveAllowed } from "./import-file";
import { imageRecord } from "./mesh-records";

export const MAX_TEXTURE_BYTES = 64 * 1024 * 1024;

/** PNG or JPEG by the file's first bytes, or null. */
export function imageMime(bytes: Uint8Array): ImageRecord["mimeType"] | null {
  if (bytes.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b)) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  return null;
}

/** The image record of a texture file; `field` names the parameter in errors. */
export async function readTextureFile(kiln: Kiln, requested: string, field: string): Promise<ImageRecord> {
  const allowed = await allowedRoots(kiln);
  const real = await resolveAllowed(requested, kiln.config.projectDir, allowed, field);
  if (!real) throw notFound("FILE_NOT_FOUND", `No file at "${requested}".`, { field, path: requested });
  const info = await stat(real);
  if (!info.isFile()) throw invalid("NOT_A_FILE", `"${requested}" is not a file.`, { field, path: requested });
  if (info.size > MAX_TEXTURE_BYTES) throw invalid("FILE_TOO_LARGE", `"${requested}" is ${info.size} bytes; textures may be at most ${MAX_TEXTURE_BYTES}.`, { field, path: requested, limit: MAX_TEXTURE_BYTES });
  const bytes = new Uint8Array(await readFile(real));
  const mimeType = imageMime(bytes);
  if (!mimeType) throw invalid("UNSUPPORTED_IMAGE", `"${requested}" is not a PNG or JPEG file.`, { field, path: requested, supported: ["png", "jpeg"] });
  return imageRecord({ name: path.basename(real), mimeType, bytes });
}
