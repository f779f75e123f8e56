/**
 * USD materials: the UsdPreviewSurface network usd.ts writes and usd-read.ts reads.
 *
 *   Material
 *     PreviewSurface   UsdPreviewSurface: diffuseColor, opacity, metallic, roughness, emissiveColor,
 *                      opacityThreshold (alpha cutoff); each input keeps its value (the material's
 *                      factor) and, with a texture, a connection to it
 *     st, st1          UsdPrimvarReader_float2 of the mesh's UV sets (primvars:st, primvars:st1)
 *     <slot>_transform UsdTransform2d for a texture with offset/scale
 *     <slot>           UsdUVTexture: file = @./image.png@ beside the .usda, sRGB for colour, raw for data
 *
 * glTF slots map to UsdPreviewSurface inputs: baseColor → diffuseColor (rgb; opacity from a when
 * the alpha mode uses it), normal → normal (scale 2, bias −1 as the spec asks for 8-bit normal
 * maps), metallicRoughness → roughness (g) and metallic (b) of one texture, occlusion → occlusion
 * (r), emissive → emissiveColor (rgb). Offset and scale are turned into USD's V-up UV space as for
 * OBJ (mtl.ts `flipTransform`); rotation is dropped with a warning.
 */
import { formatFloat as f } from "./text";
import type { InterchangeMaterial, InterchangeScene, InterchangeTexture, TextureSlot } from "./interchange";
import { flipTransform } from "./mtl";
import type { SideImages } from "./side-images";
import type { UsdPath, UsdPrim, UsdValue } from "./usda-parse";

const tuple = (v: ArrayLike<number>) => `(${Array.from(v, f).join(", ")})`;

/** Which PreviewSurface inputs each slot feeds, from which output, and the texture's colour space. */
const SLOT_INPUTS: Record<TextureSlot, { inputs: [string, string, string][]; raw: boolean }> = {
  baseColor: { inputs: [["color3f", "diffuseColor", "rgb"]], raw: false },
  normal: { inputs: [["normal3f", "normal", "rgb"]], raw: true },
  metallicRoughness: { inputs: [["float", "roughness", "g"], ["float", "metallic", "b"]], raw: true },
  occlusion: { inputs: [["float", "occlusion", "r"]], raw: true },
  emissive: { inputs: [["color3f", "emissiveColor", "rgb"]], raw: false },
};

/** The lines of one Material prim (at `path`, indented by `pad`), textures naming `imageFiles`. */
export function materialLines(m: InterchangeMaterial, path: string, pad: string, imageFiles: string[], warn: (msg: string) => void): string[] {
  const q = pad + "    ", r = q + "    ";
  const textures = Object.entries(m.textures ?? {}) as [TextureSlot, InterchangeTexture][];
  const connected = new Map<string, string>();
  for (const [slot, t] of textures) for (const [, input, output] of SLOT_INPUTS[slot].inputs) connected.set(input, `<${path}/${slot}.outputs:${output}>`);
  if (m.textures?.baseColor && m.alphaMode && m.alphaMode !== "OPAQUE") connected.set("opacity", `<${path}/baseColor.outputs:a>`);
  const input = (type: string, name: string, value: string) => {
    const link = connected.get(name);
    return [`${r}${type} inputs:${name} = ${value}`, ...(link ? [`${r}${type} inputs:${name}.connect = ${link}`] : [])];
  };
  const out = [`${q}token outputs:surface.connect = <${path}/PreviewSurface.outputs:surface>`, "", `${q}def Shader "PreviewSurface"`, `${q}{`, `${r}uniform token info:id = "UsdPreviewSurface"`];
  out.push(...input("color3f", "diffuseColor", tuple(m.color.slice(0, 3))), ...input("float", "opacity", f(m.color[3])));
  out.push(...input("float", "metallic", f(m.metallic)), ...input("float", "roughness", f(m.roughness)));
  if (m.emissive || m.textures?.emissive) out.push(...input("color3f", "emissiveColor", tuple(m.emissive ?? [0, 0, 0])));
  if (m.textures?.normal) out.push(...input("normal3f", "normal", "(0, 0, 1)"));
  if (m.textures?.occlusion) out.push(...input("float", "occlusion", "1"));
  if (m.alphaMode === "MASK") out.push(`${r}float inputs:opacityThreshold = ${f(m.alphaCutoff ?? 0.5)}`);
  out.push(`${r}token outputs:surface`, `${q}}`);
  for (const uv of [...new Set(textures.map(([, t]) => t.uv))].sort()) {
    const name = uv ? "st1" : "st";
    out.push("", `${q}def Shader "${name}"`, `${q}{`, `${r}uniform token info:id = "UsdPrimvarReader_float2"`, `${r}token inputs:varname = "${name}"`, `${r}float2 outputs:result`, `${q}}`);
  }
  for (const [slot, t] of textures) {
    if (t.rotation) warn(`usd: ${slot} texture rotation of material "${m.name}" dropped`);
    let st = `<${path}/${t.uv ? "st1" : "st"}.outputs:result>`;
    if (t.offset || t.scale) {
      const { offset, scale } = flipTransform(t.offset, t.scale);
      out.push("", `${q}def Shader "${slot}_transform"`, `${q}{`, `${r}uniform token info:id = "UsdTransform2d"`, `${r}float2 inputs:in.connect = ${st}`);
      out.push(`${r}float2 inputs:scale = ${tuple(scale)}`, `${r}float2 inputs:translation = ${tuple(offset)}`, `${r}float2 outputs:result`, `${q}}`);
      st = `<${path}/${slot}_transform.outputs:result>`;
    }
    const { raw } = SLOT_INPUTS[slot];
    out.push("", `${q}def Shader "${slot}"`, `${q}{`, `${r}uniform token info:id = "UsdUVTexture"`, `${r}asset inputs:file = @./${imageFiles[t.image]}@`);
    out.push(`${r}token inputs:sourceColorSpace = "${raw ? "raw" : "sRGB"}"`, `${r}float2 inputs:st.connect = ${st}`, `${r}token inputs:wrapS = "repeat"`, `${r}token inputs:wrapT = "repeat"`);
    if (slot === "normal") out.push(`${r}float4 inputs:scale = (2, 2, 2, 1)`, `${r}float4 inputs:bias = (-1, -1, -1, 0)`);
    out.push(`${r}float3 outputs:rgb`, `${r}float outputs:r`, `${r}float outputs:g`, `${r}float outputs:b`, `${r}float outputs:a`, `${q}}`);
  }
  return out;
}

const vec = (v: UsdValue | undefined): number[] | undefined => (Array.isArray(v) ? (v as number[]) : undefined);
const target = (v: UsdValue | undefined) => {
  const p = (Array.isArray(v) ? v[0] : v) as UsdPath | undefined;
  return typeof p?.path === "string" ? p.path.split(".")[0] : undefined;
};

/**
 * The texture slots of a UsdPreviewSurface: each connected input followed to its UsdUVTexture
 * (images read beside the file through `images`), its UsdTransform2d and primvar reader.
 */
export function readTextures(shader: UsdPrim, prims: Map<string, UsdPrim>, name: string, images: SideImages, warn: (msg: string) => void): InterchangeMaterial["textures"] {
  const out: NonNullable<InterchangeMaterial["textures"]> = {};
  const what = `material "${name}"`;
  for (const [slot, { inputs }] of Object.entries(SLOT_INPUTS) as [TextureSlot, (typeof SLOT_INPUTS)[TextureSlot]][]) {
    for (const [, input] of inputs) {
      const tex = prims.get(target(shader.properties.get(`inputs:${input}`)?.connect) ?? "");
      if (!tex || out[slot]) continue;
      if (tex.properties.get("info:id")?.value !== "UsdUVTexture") {
        warn(`usd: ${what}: ${input} is connected to a shader other than UsdUVTexture; dropped`);
        continue;
      }
      const file = tex.properties.get("inputs:file")?.value;
      if (typeof file !== "string" || !file) {
        warn(`usd: ${what}: ${input} texture without a file dropped`);
        continue;
      }
      const image = images.image(file, what);
      if (image === undefined) continue;
      const t: InterchangeTexture = { image, uv: 0 };
      // st ← [UsdTransform2d ←] UsdPrimvarReader_float2 (varname st → UV set 0, st1 → 1).
      let st = prims.get(target(tex.properties.get("inputs:st")?.connect) ?? "");
      if (st?.properties.get("info:id")?.value === "UsdTransform2d") {
        const scale = vec(st.properties.get("inputs:scale")?.value) ?? [1, 1];
        const translation = vec(st.properties.get("inputs:translation")?.value) ?? [0, 0];
        if (Number(st.properties.get("inputs:rotation")?.value ?? 0) !== 0) warn(`usd: ${what}: ${input} texture rotation dropped`);
        const back = flipTransform([translation[0], translation[1]], [scale[0], scale[1]]);
        if (back.offset[0] !== 0 || back.offset[1] !== 0) t.offset = back.offset;
        if (back.scale[0] !== 1 || back.scale[1] !== 1) t.scale = back.scale;
        st = prims.get(target(st.properties.get("inputs:in")?.connect) ?? "");
      }
      const varname = st?.properties.get("inputs:varname")?.value;
      if (varname === "st1") t.uv = 1;
      out[slot] = t;
    }
  }
  return Object.keys(out).length ? out : undefined;
}
