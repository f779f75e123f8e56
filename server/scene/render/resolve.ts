/**
 * Background and downsampling.
 *
 * Samples no surface reached get the sky seen in their direction (or the flat background).
 * Each output pixel is the box average of its ss x ss samples, taken after tone mapping
 * (display-linear): averaging tone-mapped values keeps edges between very bright and dark
 * surfaces smooth, where averaging radiance would let the bright side swallow the edge.
 * The average is then sRGB-encoded through the lookup table, with 4x4 ordered dithering by
 * default (as Blender's output has by default): the sky and softly lit planes are smooth
 * gradients a few 8-bit levels deep, which would otherwise show as bands. Ordered (not random)
 * dithering keeps the image deterministic; it never moves a value by a whole level on average,
 * and pure black and white stay exact.
 */
import { BAYER4, SRGB_LUT_SIZE, srgbLut, srgbLut16, toneMap } from "./color";
import type { ViewSetup } from "./camera";
import type { RasterState } from "./raster";
import { skyRadiance } from "./sky";
import type { RenderOutput } from "./types";

/** Entries of the per-frame sky table over view-direction heights -1..1 (1/1024 steps: finer than the 8-bit output). */
const SKY_STEPS = 2048;

/** Writes the sky (or `flat`, linear) into every sample whose depth is still the cleared value. */
export function fillBackground(st: RasterState, view: ViewSetup, clearDepth: number, flat: [number, number, number] | null, exposure: number): void {
  const { width, height, depth, color, sky } = st;
  // Tone-mapped sky colour by direction height, tabulated once per frame (the sky only depends on y).
  const table = new Float32Array((SKY_STEPS + 1) * 3);
  const tmp = new Float64Array(3);
  for (let k = 0; k <= SKY_STEPS; k++) {
    if (flat) tmp.set(flat);
    else skyRadiance(sky, (2 * k) / SKY_STEPS - 1, tmp, 0);
    table[k * 3] = toneMap(tmp[0] * exposure);
    table[k * 3 + 1] = toneMap(tmp[1] * exposure);
    table[k * 3 + 2] = toneMap(tmp[2] * exposure);
  }
  // Direction of sample (x, y) = fwd + a right - b up with a, b in units of the focal length.
  const f = (height / 2) / view.tanY; // pixels per unit tangent
  const { fwd, right, up } = view;
  const half = SKY_STEPS / 2;
  for (let y = 0; y < height; y++) {
    const b = (y + 0.5 - height / 2) / f;
    const row = y * width;
    const rowY = fwd[1] - b * up[1], b2 = 1 + b * b;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (depth[i] !== clearDepth) continue;
      const a = (x + 0.5 - width / 2) / f;
      const k = (((rowY + a * right[1]) / Math.sqrt(b2 + a * a)) * half + half + 0.5) | 0;
      const t = (k < 0 ? 0 : k > SKY_STEPS ? SKY_STEPS : k) * 3, o = i * 3;
      color[o] = table[t]; color[o + 1] = table[t + 1]; color[o + 2] = table[t + 2];
    }
  }
}

/** Box-filters ss x ss samples per pixel and encodes to opaque sRGB RGBA8 (dithered unless told not to). */
export function resolve(st: RasterState, width: number, height: number, ss: number, dither = true): RenderOutput {
  const data = new Uint8ClampedArray(width * height * 4);
  if (dither) return resolveDithered(st, width, height, ss, data);
  const lut = srgbLut();
  const color = st.color, sw = st.width;
  const scale = (SRGB_LUT_SIZE - 1) / (ss * ss);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let j = 0; j < ss; j++) {
        let o = ((y * ss + j) * sw + x * ss) * 3;
        for (let i = 0; i < ss; i++, o += 3) { r += color[o]; g += color[o + 1]; b += color[o + 2]; }
      }
      const d = (y * width + x) * 4;
      data[d] = lut[(r * scale + 0.5) | 0];
      data[d + 1] = lut[(g * scale + 0.5) | 0];
      data[d + 2] = lut[(b * scale + 0.5) | 0];
      data[d + 3] = 255;
    }
  }
  return { width, height, data };
}

function resolveDithered(st: RasterState, width: number, height: number, ss: number, data: Uint8ClampedArray): RenderOutput {
  const lut = srgbLut16(), bayer = BAYER4;
  const color = st.color, sw = st.width;
  const scale = (SRGB_LUT_SIZE - 1) / (ss * ss);
  for (let y = 0; y < height; y++) {
    const brow = (y & 3) << 2;
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let j = 0; j < ss; j++) {
        let o = ((y * ss + j) * sw + x * ss) * 3;
        for (let i = 0; i < ss; i++, o += 3) { r += color[o]; g += color[o + 1]; b += color[o + 2]; }
      }
      // Each channel reads the matrix at a different offset, so the three round independently.
      const d = (y * width + x) * 4;
      data[d] = (lut[(r * scale + 0.5) | 0] + bayer[brow + (x & 3)]) >> 4;
      data[d + 1] = (lut[(g * scale + 0.5) | 0] + bayer[(brow + 6 + (x & 3)) & 15]) >> 4;
      data[d + 2] = (lut[(b * scale + 0.5) | 0] + bayer[(brow + 11 + (x & 3)) & 15]) >> 4;
      data[d + 3] = 255;
    }
  }
  return { width, height, data };
}
