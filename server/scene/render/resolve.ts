/**
 * Background and downsampling.
 *
 * Samples no surface reached get the sky seen in their direction (or the flat background).
 * Each output pixel is the box average of its ss x ss samples, taken after tone mapping
 * (display-linear): averaging tone-mapped values keeps edges between very bright and dark
 * surfaces smooth, where averaging radiance would let the bright side swallow the edge.
 * The average is then sRGB-encoded through the lookup table, dithered by default (as Blender's
 * output is): the sky and softly lit planes are smooth gradients a few 8-bit levels deep, which
 * would otherwise show as bands. The dither is triangular (TPDF, the sum of two uniform
 * thresholds, the standard for requantising): unlike a uniform or ordered one, its error does not
 * depend on the signal, so flat areas and gradients carry the same fine grain, the way a path
 * tracer's output does, instead of a repeating 4x4 pattern. It spans three 8-bit levels per
 * channel (the nearest two and, rarely, one more) and moves a value by at most 1/32 of a level on average. The
 * thresholds come from a hash of the pixel position, so the image is deterministic; pure black
 * and white stay exact.
 */
import { SRGB_LUT_SIZE, srgbLut, srgbLut16, toneMap } from "./color";
import type { ViewSetup } from "./camera";
import type { RasterState } from "./raster";
import { skyRadiance } from "./sky";

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
  // Direction through (x, y) = fwd + a right - b up with a, b in units of the focal length. The sky
  // varies slowly across the image, so it is looked up once per output pixel (at its centre) and
  // written to that pixel's uncovered samples: a quarter of the square roots at 2x2 samples.
  const ss = st.ss;
  const f = view.focal; // samples per unit tangent
  const { fwd, right, up, cx, cy } = view;
  const half = SKY_STEPS / 2;
  for (let py = 0; py < height; py += ss) {
    const b = (py + ss / 2 - cy) / f;
    const rowY = fwd[1] - b * up[1], b2 = 1 + b * b;
    for (let px = 0; px < width; px += ss) {
      const a = (px + ss / 2 - cx) / f;
      const k = (((rowY + a * right[1]) / Math.sqrt(b2 + a * a)) * half + half + 0.5) | 0;
      const t = (k < 0 ? 0 : k > SKY_STEPS ? SKY_STEPS : k) * 3;
      const r = table[t], g = table[t + 1], bl = table[t + 2];
      for (let j = 0; j < ss; j++) {
        const row = (py + j) * width;
        for (let i = 0; i < ss; i++) {
          const idx = row + px + i;
          if (depth[idx] !== clearDepth) continue;
          const o = idx * 3;
          color[o] = r; color[o + 1] = g; color[o + 2] = bl;
        }
      }
    }
  }
}

/**
 * Box-filters ss x ss samples per pixel and encodes to opaque sRGB RGBA8 (dithered unless told
 * not to) into `data`, whose row 0 is the frame's row `top` (the dither depends on the frame's row).
 */
export function resolve(st: RasterState, width: number, height: number, ss: number, data: Uint8ClampedArray, top = 0, dither = true): void {
  if (dither) return resolveDithered(st, width, height, ss, data, top);
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
}

/** A value in sixteenths of a level (0..4080) rounded to 8 bits with the triangular threshold `t` (0..30). */
function tpdf(v16: number, t: number): number {
  if (v16 === 0 || v16 === 4080) return v16 >> 4; // pure black and white stay exact
  const out = (v16 + t - 7) >> 4;
  return out < 0 ? 0 : out > 255 ? 255 : out;
}

function resolveDithered(st: RasterState, width: number, height: number, ss: number, data: Uint8ClampedArray, top: number): void {
  const lut = srgbLut16();
  const color = st.color, sw = st.width;
  const scale = (SRGB_LUT_SIZE - 1) / (ss * ss);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0;
      for (let j = 0; j < ss; j++) {
        let o = ((y * ss + j) * sw + x * ss) * 3;
        for (let i = 0; i < ss; i++, o += 3) { r += color[o]; g += color[o + 1]; b += color[o + 2]; }
      }
      // Six 4-bit uniform thresholds from one hash of the position (lowbias32, a well-mixing
      // integer hash), two summed per channel: independent triangular thresholds 0..30.
      let h = Math.imul(x + 1, 0x9e3779b1) ^ Math.imul(y + top + 1, 0x85ebca77);
      h ^= h >>> 16; h = Math.imul(h, 0x7feb352d); h ^= h >>> 15; h = Math.imul(h, 0x846ca68b); h ^= h >>> 16;
      const d = (y * width + x) * 4;
      data[d] = tpdf(lut[(r * scale + 0.5) | 0], (h & 15) + ((h >>> 4) & 15));
      data[d + 1] = tpdf(lut[(g * scale + 0.5) | 0], ((h >>> 8) & 15) + ((h >>> 12) & 15));
      data[d + 2] = tpdf(lut[(b * scale + 0.5) | 0], ((h >>> 16) & 15) + ((h >>> 20) & 15));
      data[d + 3] = 255;
    }
  }
}
