/**
 * Texture images that text formats (OBJ/MTL, USDA) keep as files beside the main file: the names
 * writers give them, and the lookup readers make for a name the file references.
 *
 * A reference is only ever looked up beside the file: absolute paths, drive letters, `..` segments
 * and URLs are refused here (the texture is dropped with a warning), so a hostile `map_Kd
 * ../../etc/passwd` cannot name anything outside the file's folder. import_asset applies the same
 * rule (`besideOnly`) before it reads any side file, and checks the real path again.
 */
import type { InterchangeImage, InterchangeScene } from "./interchange";

/** The reference as a plain relative path inside the file's folder, or null when it could leave it. */
export function besideOnly(ref: string): string | null {
  const p = ref.replace(/\\/g, "/").replace(/^\.\//, "");
  if (!p || p.includes("\0") || p.startsWith("/") || /^[A-Za-z]:/.test(p) || /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(p)) return null;
  return p.split("/").some((s) => s === ".." || s === "") ? null : p;
}

/** The image type by its signature (never by the name): PNG or JPEG, else null. */
export function imageMime(bytes: Uint8Array): InterchangeImage["mimeType"] | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  return null;
}

/**
 * File names for the scene's images, beside `<baseName>.<ext>`: `<baseName>_<image name>.png|jpg`
 * reduced to letters, digits, `-`, `_` and `.` (no separators, never dot-led), unique.
 */
export function imageFileNames(scene: InterchangeScene, baseName: string): string[] {
  const used = new Set<string>();
  return (scene.images ?? []).map((img, i) => {
    const stem = `${baseName}_${img.name.replace(/\.(png|jpe?g)$/i, "") || `image_${i}`}`.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 100) || `image_${i}`;
    const ext = img.mimeType === "image/png" ? ".png" : ".jpg";
    let name = `${stem}${ext}`;
    for (let k = 2; used.has(name.toLowerCase()); k++) name = `${stem}_${k}${ext}`;
    used.add(name.toLowerCase());
    return name;
  });
}

/**
 * Reads images a file references into `scene.images`, once per name; `image(ref)` answers the
 * index, or undefined (with a warning naming `what`) when the image is missing, outside the
 * file's folder, or not a PNG or JPEG.
 */
export class SideImages {
  private readonly byName = new Map<string, number | undefined>();

  constructor(private readonly files: Map<string, Uint8Array>, private readonly scene: InterchangeScene, private readonly warn: (msg: string) => void, private readonly format: string) {}

  image(ref: string, what: string): number | undefined {
    if (this.byName.has(ref)) {
      const known = this.byName.get(ref);
      if (known === undefined) this.warn(`${this.format}: ${what}: image "${ref}" not read; texture dropped`);
      return known;
    }
    const name = besideOnly(ref);
    const bytes = name === null ? undefined : this.files.get(name) ?? this.files.get(ref);
    const mime = bytes && imageMime(bytes);
    let index: number | undefined;
    if (name === null) this.warn(`${this.format}: ${what}: image "${ref}" is not beside the file; texture dropped`);
    else if (!bytes) this.warn(`${this.format}: ${what}: image "${ref}" not found beside the file; texture dropped`);
    else if (!mime) this.warn(`${this.format}: ${what}: image "${ref}" is not a PNG or JPEG; texture dropped`);
    else index = (this.scene.images ??= []).push({ name: name.replace(/^.*\//, "").replace(/\.[^.]*$/, ""), mimeType: mime, bytes }) - 1;
    this.byName.set(ref, index);
    return index;
  }
}
