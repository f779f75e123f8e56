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

/** Writes the sky (or `flat`, linear) into every sample whose depth is still the cleared value. */
export function fillBackground(st: RasterState, view: ViewSetup, clearDepth: number, flat: [number, number, number] | null, exposure: number): void {
  const { width, height, depth, color, sky } = st;
  const tmp = new Float64Array(3);
  if (flat) for (let k = 0; k < 3; k++) tmp[k] = toneMap(flat[k] * exposure);
  // Direction of sample (x, y) = fwd + a right - b up with a, b in units of the focal length.
  const f = (height / 2) / view.tanY; // pixels per unit tangent
  const { fwd, right, up } = view;
  for (let y = 0; y < height; y++) {
    const b = (y + 0.5 - height / 2) / f;
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (depth[i] !== clearDepth) continue;
      const o = i * 3;
      if (!flat) {
        const a = (x + 0.5 - width / 2) / f;
        const dy = fwd[1] + a * right[1] - b * up[1];
        skyRadiance(sky, dy / Math.sqrt(1 + a * a + b * b), tmp, 0);
        color[o] = toneMap(tmp[0] * exposure);
        color[o + 1] = toneMap(tmp[1] * exposure);
        color[o + 2] = toneMap(tmp[2] * exposure);
      } else {
        color[o] = tmp[0]; color[o + 1] = tmp[1]; color[o + 2] = tmp[2];
      }
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
