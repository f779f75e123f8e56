/**
 * MTL material libraries for the OBJ writer and reader: `Kd`/`d` plus the de-facto PBR extension
 * lines `Pr` (roughness), `Pm` (metallic) and `Ke` (emissive) that Blender and assimp read, and
 * texture maps naming image files beside the .mtl:
 *
 *   baseColor          map_Kd
 *   normal             map_Bump (what Blender writes and reads as a normal map; `norm` and `bump` are read too)
 *   emissive           map_Ke
 *   metallicRoughness  map_Pr -imfchan g and map_Pm -imfchan b on the same image (glTF packs
 *                      roughness in green, metallic in blue; `-imfchan` is MTL's channel option)
 *   occlusion          no MTL statement: dropped with a warning
 *
 * Texture transforms become `-o`/`-s` in OBJ's UV space (origin bottom left): a glTF transform
 * uv' = uv·s + o with V down is, with V up, u' = u·sᵤ + oᵤ and v' = v·sᵥ + (1 − sᵥ − oᵥ).
 * Rotation has no MTL option and is dropped with a warning. Colours are written linear, as Blender does.
 */
import { formatFloat as f } from "./text";
import type { InterchangeMaterial, InterchangeScene, InterchangeTexture, TextureSlot } from "./interchange";
import type { SideImages } from "./side-images";

/** A glTF-space offset/scale as OBJ's `-o u v` and `-s u v` (V up), and back (the same map is its own inverse). */
export function flipTransform(offset: [number, number] = [0, 0], scale: [number, number] = [1, 1]): { offset: [number, number]; scale: [number, number] } {
  return { offset: [offset[0], 1 - scale[1] - offset[1]], scale: [scale[0], scale[1]] };
}

const isIdentity = (t: InterchangeTexture) => (!t.offset || (t.offset[0] === 0 && t.offset[1] === 0)) && (!t.scale || (t.scale[0] === 1 && t.scale[1] === 1));

/** `map_X [-o u v] [-s u v] [-imfchan c] file` for one texture. */
function mapLine(key: string, t: InterchangeTexture, file: string, channel?: string): string {
  const opts: string[] = [];
  if (!isIdentity(t)) {
    const { offset, scale } = flipTransform(t.offset, t.scale);
    opts.push(`-o ${f(offset[0])} ${f(offset[1])} 0`, `-s ${f(scale[0])} ${f(scale[1])} 1`);
  }
  if (channel) opts.push(`-imfchan ${channel}`);
  return [key, ...opts, file].join(" ");
}

/** The .mtl text for `scene.materials` named `names`, textures naming `imageFiles`; warnings for what MTL cannot hold. */
export function writeMtl(scene: InterchangeScene, names: string[], imageFiles: string[], warnings: string[]): string {
  const lines: string[] = ["# Kiln MTL export: linear colours, PBR extension (Pr roughness, Pm metallic, Ke emissive)"];
  scene.materials.forEach((m, i) => {
    lines.push("", `newmtl ${names[i]}`, `Kd ${f(m.color[0])} ${f(m.color[1])} ${f(m.color[2])}`, `d ${f(m.color[3])}`);
    // Ns/illum serve readers without the PBR extension; Ns follows Blender's roughness mapping.
    lines.push(`Ns ${f(1000 * (1 - m.roughness) ** 2)}`, `Pr ${f(m.roughness)}`, `Pm ${f(m.metallic)}`, "illum 2");
    if (m.emissive) lines.push(`Ke ${f(m.emissive[0])} ${f(m.emissive[1])} ${f(m.emissive[2])}`);
    const t = m.textures ?? {};
    const where = `material "${m.name}"`;
    for (const [slot, tex] of Object.entries(t) as [TextureSlot, InterchangeTexture][]) {
      if (slot === "occlusion") warnings.push(`obj: occlusion texture of ${where} dropped (MTL has no occlusion map)`);
      else if (tex.uv !== 0) warnings.push(`obj: ${slot} texture of ${where} uses the second UV set; written on the first (OBJ has one)`);
      if (tex.rotation) warnings.push(`obj: ${slot} texture rotation of ${where} dropped (MTL has no rotation option)`);
    }
    if (t.baseColor) lines.push(mapLine("map_Kd", t.baseColor, imageFiles[t.baseColor.image]));
    if (t.normal) lines.push(mapLine("map_Bump", t.normal, imageFiles[t.normal.image]));
    if (t.emissive) lines.push(mapLine("map_Ke", t.emissive, imageFiles[t.emissive.image]));
    if (t.metallicRoughness) {
      lines.push(mapLine("map_Pr", t.metallicRoughness, imageFiles[t.metallicRoughness.image], "g"));
      lines.push(mapLine("map_Pm", t.metallicRoughness, imageFiles[t.metallicRoughness.image], "b"));
    }
  });
  return lines.join("\n") + "\n";
}

/** The MTL texture statements the reader uses (lower case); import_asset reads only their images. */
export const MTL_TEXTURE_KEYS: ReadonlySet<string> = new Set(["map_kd", "map_bump", "bump", "norm", "map_ke", "map_pr", "map_pm"]);

/** How many arguments each MTL texture option takes (`-o`, `-s`, `-t` take one to three numbers). */
const OPTION_ARGS: Record<string, number> = { "-bm": 1, "-boost": 1, "-mm": 2, "-texres": 1, "-clamp": 1, "-blendu": 1, "-blendv": 1, "-imfchan": 1, "-type": 1, "-cc": 1 };

/** A texture statement's options and file name (the rest of the line, which may hold blanks). */
export function parseMapLine(rest: string): { file: string; options: Map<string, string[]> } {
  const options = new Map<string, string[]>();
  const tokens = rest.trim().split(/\s+/);
  let k = 0;
  // The last token is always the file name, never an option or its argument.
  while (k < tokens.length - 1 && /^-[A-Za-z]+$/.test(tokens[k])) {
    const key = tokens[k++].toLowerCase();
    const vector = key === "-o" || key === "-s" || key === "-t";
    const args: string[] = [];
    for (let n = 0; n < (vector ? 3 : OPTION_ARGS[key] ?? 0) && k < tokens.length - 1; n++) {
      if (vector && !Number.isFinite(Number(tokens[k]))) break;
      args.push(tokens[k++]);
    }
    options.set(key, args);
  }
  return { file: tokens.slice(k).join(" "), options };
}

/** A texture slot from a map line: the image (read beside the file), OBJ's -o/-s back in glTF's UV space. */
function readMap(rest: string, what: string, images: SideImages, warn: (msg: string) => void): InterchangeTexture | undefined {
  const { file, options } = parseMapLine(rest);
  if (!file) return warn(`obj: ${what}: texture without a file name dropped`), undefined;
  const image = images.image(file, what);
  if (image === undefined) return undefined;
  const tex: InterchangeTexture = { image, uv: 0 };
  const o = (options.get("-o") ?? []).map(Number), s = (options.get("-s") ?? []).map(Number);
  if (o.length || s.length) {
    const t = flipTransform([o[0] ?? 0, o[1] ?? 0], [s[0] ?? 1, s[1] ?? 1]);
    // The inverse of flipTransform is flipTransform: v-offset 1 − sᵥ − oᵥ maps back onto itself.
    if (t.offset[0] !== 0 || t.offset[1] !== 0) tex.offset = t.offset;
    if (t.scale[0] !== 1 || t.scale[1] !== 1) tex.scale = t.scale;
  }
  return tex;
}

/** Parses MTL text into materials keyed by name; images named by texture maps are read through `images`. */
export function parseMtl(text: string, images: SideImages, warn: (msg: string) => void): Map<string, InterchangeMaterial> {
  const out = new Map<string, InterchangeMaterial>();
  let cur: (InterchangeMaterial & { hasPr?: boolean; pr?: InterchangeTexture; pm?: InterchangeTexture }) | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const key = line.split(/\s+/, 1)[0];
    const rest = line.slice(key.length).trim();
    const nums = rest.split(/\s+/).map(Number);
    const what = `material "${cur?.name}"`;
    const map = (slot: TextureSlot) => {
      const t = cur && readMap(rest, what, images, warn);
      if (cur && t) (cur.textures ??= {})[slot] = t;
    };
    switch (key.toLowerCase()) {
      case "newmtl":
        out.set(rest, (cur = { name: rest, color: [0.8, 0.8, 0.8, 1], metallic: 0, roughness: 0.5 }));
        break;
      case "kd": if (cur) cur.color = [nums[0], nums[1] ?? nums[0], nums[2] ?? nums[0], cur.color[3]]; break;
      case "d": if (cur) cur.color[3] = nums[0]; break;
      case "tr": if (cur) cur.color[3] = 1 - nums[0]; break;
      case "pr": if (cur) Object.assign(cur, { roughness: nums[0], hasPr: true }); break;
      case "pm": if (cur) cur.metallic = nums[0]; break;
      // Without Pr, derive roughness from the Phong exponent the way Blender does.
      case "ns": if (cur && !cur.hasPr) cur.roughness = 1 - Math.sqrt(Math.min(Math.max(nums[0], 0), 1000) / 1000); break;
      case "ke": if (cur && nums.some((n) => n !== 0)) cur.emissive = [nums[0], nums[1] ?? nums[0], nums[2] ?? nums[0]]; break;
      case "map_kd": map("baseColor"); break;
      case "map_bump": case "bump": case "norm": map("normal"); break;
      case "map_ke": map("emissive"); break;
      // Roughness and metallic maps come back together as glTF's one metallic-roughness image
      // when they name the same image (as Kiln writes them); otherwise roughness's image is kept.
      case "map_pr": if (cur) cur.pr = readMap(rest, what, images, warn); break;
      case "map_pm": if (cur) cur.pm = readMap(rest, what, images, warn); break;
      // Phong-only terms with no metallic-roughness meaning: nothing to carry.
      case "ka": case "ks": case "ni": case "illum": break;
      default: warn(key.toLowerCase().startsWith("map_") || key === "disp" || key === "refl"
        ? `obj: ${what}: texture ${key} dropped`
        : `obj: MTL statement "${key}" ignored`);
    }
  }
  for (const m of out.values()) {
    const { pr, pm } = m as { pr?: InterchangeTexture; pm?: InterchangeTexture };
    if (pr || pm) {
      if (pr && pm && pr.image !== pm.image) warn(`obj: material "${m.name}": separate roughness and metallic images; the metallic one dropped`);
      (m.textures ??= {}).metallicRoughness = (pr ?? pm)!;
    }
    for (const k of ["hasPr", "pr", "pm"]) delete (m as unknown as Record<string, unknown>)[k];
  }
  return out;
}
