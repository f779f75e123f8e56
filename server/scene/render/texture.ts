/**
 * Base colour textures: a mesh's UVs with the texture transform applied once per frame
 * (prepareTexture), and the per-sample lookup (textureBase) that sets the shaded colour.
 *
 * The transform is affine, so applying it to the vertices and interpolating the result is the
 * same as transforming every interpolated UV, at a per-vertex instead of per-sample cost.
 * Filtering is bilinear with repeat wrapping, in linear light: texels are sRGB-decoded (a
 * 256-entry table) before they are blended, as a GPU does with an sRGB texture. No mipmaps: a
 * texture much finer than the screen shimmers (aliasing), which a preview accepts.
 */
import type { RasterState } from "./raster";
import type { RenderImage, RenderMesh } from "./types";

/** A mesh's texture, ready to sample: the image and one transformed (u, v) per vertex. */
export class TextureMap {
  constructor(
    readonly width: number,
    readonly height: number,
    /** RGBA8, sRGB, row-major, top row first. */
    readonly data: Uint8Array | Uint8ClampedArray,
    /** Transformed UVs, two per vertex. */
    readonly uv: Float32Array,
  ) {}
}

/** sRGB byte -> linear, the exact curve. */
const SRGB_TO_LINEAR = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  SRGB_TO_LINEAR[i] = c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/**
 * The mesh's texture, or null (no texture, image not supplied or malformed, UVs too short):
 * the mesh is then drawn with its flat colour, as before textures existed.
 */
export function prepareTexture(mesh: RenderMesh, images: Record<string, RenderImage> | undefined): TextureMap | null {
  const t = mesh?.texture;
  if (!t || !images || typeof t.image !== "string" || !Object.hasOwn(images, t.image)) return null;
  const img = images[t.image];
  const w = img?.width, h = img?.height, data = img?.data;
  if (!Number.isInteger(w) || !Number.isInteger(h) || w < 1 || h < 1 || !data || data.length < w * h * 4) return null;
  const nv = Math.floor((mesh.positions?.length ?? 0) / 3);
  const src = t.uv;
  if (!(src instanceof Float32Array) || src.length < nv * 2) return null;
  const [ox, oy] = pair(t.offset, 0), [sx, sy] = pair(t.scale, 1);
  const r = Number.isFinite(t.rotation) ? (t.rotation as number) : 0;
  const c = Math.cos(r), s = Math.sin(r);
  // KHR_texture_transform: uv' = T · R · S · uv with R = [[cos, sin], [-sin, cos]] (row-major):
  // counter-clockwise in V-down UV space, as three.js, Blender's importer and Khronos'
  // TextureTransformTest model have it (the spec's GLSL listing is transposed: KhronosGroup/glTF#1563).
  const m00 = c * sx, m01 = s * sy, m10 = -s * sx, m11 = c * sy;
  const uv = new Float32Array(nv * 2);
  for (let i = 0; i < nv * 2; i += 2) {
    const u = src[i], v = src[i + 1];
    uv[i] = m00 * u + m01 * v + ox;
    uv[i + 1] = m10 * u + m11 * v + oy;
  }
  return new TextureMap(w, h, data, uv);
}

function pair(p: [number, number] | undefined, fallback: number): [number, number] {
  if (!Array.isArray(p)) return [fallback, fallback];
  return [Number.isFinite(p[0]) ? p[0] : fallback, Number.isFinite(p[1]) ? p[1] : fallback];
}

const LUT = SRGB_TO_LINEAR;

/**
 * Samples the texture at (u, v) = st.at[6..7] and makes base = factor × texel the material for the sample about
 * to be shaded (diffuse and F0 in st.params, as setMaterial derives them).
 */
export function textureBase(st: RasterState, tex: TextureMap): void {
  const u = st.at[6], v = st.at[7];
  const W = tex.width, H = tex.height, d = tex.data;
  // Repeat: keep the fraction (a NaN or a rounding up to 1 becomes 0), then texel centres at +0.5.
  let fu = u - Math.floor(u), fv = v - Math.floor(v);
  if (!(fu >= 0 && fu < 1)) fu = 0;
  if (!(fv >= 0 && fv < 1)) fv = 0;
  const x = fu * W - 0.5, y = fv * H - 0.5;
  const xf = Math.floor(x), yf = Math.floor(y);
  const ax = x - xf, ay = y - yf;
  const x0 = xf < 0 ? W - 1 : xf, x1 = xf + 1 >= W ? 0 : xf + 1;
  const y0 = yf < 0 ? H - 1 : yf, y1 = yf + 1 >= H ? 0 : yf + 1;
  const o00 = (y0 * W + x0) * 4, o01 = (y0 * W + x1) * 4, o10 = (y1 * W + x0) * 4, o11 = (y1 * W + x1) * 4;
  const w00 = (1 - ax) * (1 - ay), w01 = ax * (1 - ay), w10 = (1 - ax) * ay, w11 = ax * ay;
  const L = LUT;
  const r = w00 * L[d[o00]] + w01 * L[d[o01]] + w10 * L[d[o10]] + w11 * L[d[o11]];
  const g = w00 * L[d[o00 + 1]] + w01 * L[d[o01 + 1]] + w10 * L[d[o10 + 1]] + w11 * L[d[o11 + 1]];
  const b = w00 * L[d[o00 + 2]] + w01 * L[d[o01 + 2]] + w10 * L[d[o10 + 2]] + w11 * L[d[o11 + 2]];
  const P = st.params;
  const m = P[3];
  const br = P[16] * r, bg = P[17] * g, bb = P[18] * b;
  P[9] = 0.04 + (br - 0.04) * m; P[10] = 0.04 + (bg - 0.04) * m; P[11] = 0.04 + (bb - 0.04) * m;
  P[12] = br * (1 - m); P[13] = bg * (1 - m); P[14] = bb * (1 - m);
}
