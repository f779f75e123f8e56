/**
 * Background and downsampling.
 *
 * Samples no surface reached get the sky seen in their direction (or the flat background). The
 * resolve looks that up itself for the samples it finds uncovered (the depth still cleared), so a
 * frame does not first write the sky into every such sample's colour and then read it back: at
 * 1080p that separate pass cost about a tenth of the frame. Only overlays, which blend over the
 * background, need it written first (fillBackground).
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
import { LITTLE_ENDIAN, SRGB_LUT_SIZE, srgbLut, srgbLut16, toneMap } from "./color";
import type { ViewSetup } from "./camera";
import type { RasterState } from "./raster";
import { skyRadiance } from "./sky";

/** Entries of the per-frame sky table over view-direction heights -1..1 (1/1024 steps: finer than the 8-bit output). */
const SKY_STEPS = 2048;

/** What uncovered samples show: the tone-mapped sky by view-direction height, and the view to aim it. */
export interface Backdrop {
  readonly table: Float32Array;
  readonly view: ViewSetup;
  /** The depth of a sample no surface reached (as stored in the Float32Array). */
  readonly clearDepth: number;
}

/** Tabulates the sky (or `flat`, linear) once per band: it only depends on the direction's height. */
export function backdrop(st: RasterState, view: ViewSetup, clearDepth: number, flat: [number, number, number] | null, exposure: number): Backdrop {
  const table = new Float32Array((SKY_STEPS + 1) * 3);
  const tmp = new Float64Array(3);
  for (let k = 0; k <= SKY_STEPS; k++) {
    if (flat) tmp.set(flat);
    else skyRadiance(st.sky, (2 * k) / SKY_STEPS - 1, tmp, 0);
    table[k * 3] = toneMap(tmp[0] * exposure);
    table[k * 3 + 1] = toneMap(tmp[1] * exposure);
    table[k * 3 + 2] = toneMap(tmp[2] * exposure);
  }
  return { table, view, clearDepth };
}

/**
 * Offset into the backdrop's table for the ray through sample (sx, sy) of the band: direction
 * fwd + a right - b up with a, b in units of the focal length. The sky varies slowly across the
 * image, so it is looked up once per output pixel, at its centre.
 */
function skyOffset(v: ViewSetup, sx: number, sy: number): number {
  const a = (sx - v.cx) / v.focal, b = (sy - v.cy) / v.focal;
  const half = SKY_STEPS / 2;
  const k = ((((v.fwd[1] - b * v.up[1] + a * v.right[1]) / Math.sqrt(1 + b * b + a * a)) * half + half + 0.5) | 0);
  return (k < 0 ? 0 : k > SKY_STEPS ? SKY_STEPS : k) * 3;
}

/** Writes the backdrop into every uncovered sample (needed only before overlays blend over it). */
export function fillBackground(st: RasterState, bd: Backdrop): void {
  const { width, height, depth, color, ss } = st;
  const { table, view, clearDepth } = bd;
  for (let py = 0; py < height; py += ss) {
    for (let px = 0; px < width; px += ss) {
      const t = skyOffset(view, px + ss / 2, py + ss / 2);
      for (let j = 0; j < ss; j++) {
        for (let i = 0, idx = (py + j) * width + px; i < ss; i++, idx++) {
          if (depth[idx] !== clearDepth) continue;
          color[idx * 3] = table[t]; color[idx * 3 + 1] = table[t + 1]; color[idx * 3 + 2] = table[t + 2];
        }
      }
    }
  }
}

/** A value in sixteenths of a level (0..4080) rounded to 8 bits with the triangular threshold `t` (0..30). */
function tpdf(v16: number, t: number): number {
  if (v16 === 0 || v16 === 4080) return v16 >> 4; // pure black and white stay exact
  const out = (v16 + t - 7) >> 4;
  return out < 0 ? 0 : out > 255 ? 255 : out;
}

/**
 * Box-filters ss x ss samples per pixel and encodes to opaque sRGB RGBA8 (dithered unless told
 * not to) into `data`, whose row 0 is the frame's row `top` (the dither depends on the frame's
 * row). With a backdrop, uncovered samples take its colour instead of the colour buffer's.
 */
export function resolve(st: RasterState, width: number, height: number, ss: number, data: Uint8ClampedArray, top = 0, dither = true, bd: Backdrop | null = null): void {
  const lut8 = srgbLut(), lut16 = srgbLut16();
  const { color, depth } = st, sw = st.width;
  const scale = (SRGB_LUT_SIZE - 1) / (ss * ss);
  const clear = bd === null ? NaN : bd.clearDepth; // NaN never equals a depth: no sample is uncovered
  const table = bd === null ? EMPTY : bd.table;
  const v = bd === null ? null : bd.view;
  // One 32-bit store per pixel: a clamped byte array's four stores cost more than the rest of a pixel.
  const aligned = data.byteOffset % 4 === 0 && LITTLE_ENDIAN;
  const words = aligned ? new Uint32Array(data.buffer, data.byteOffset, width * height) : null;
  const half = SKY_STEPS / 2;
  for (let y = 0; y < height; y++) {
    // The sky ray through this row's pixel centres (see skyOffset), the parts that do not depend on x.
    let rowY = 0, b2 = 1, ax = 0, ay = 0;
    if (v !== null) {
      const b = (y * ss + ss / 2 - v.cy) / v.focal;
      rowY = v.fwd[1] - b * v.up[1]; b2 = 1 + b * b;
      ax = ss / v.focal; ay = (ss / 2 - v.cx) / v.focal;
    }
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0, uncovered = 0;
      if (ss === 2) {
        // The default 2x2 unrolled (two thirds of the resolve's time is this loop's bookkeeping).
        const i0 = y * 2 * sw + x * 2, i1 = i0 + sw;
        if (depth[i0] === clear) uncovered++; else { const o = i0 * 3; r += color[o]; g += color[o + 1]; b += color[o + 2]; }
        if (depth[i0 + 1] === clear) uncovered++; else { const o = i0 * 3 + 3; r += color[o]; g += color[o + 1]; b += color[o + 2]; }
        if (depth[i1] === clear) uncovered++; else { const o = i1 * 3; r += color[o]; g += color[o + 1]; b += color[o + 2]; }
        if (depth[i1 + 1] === clear) uncovered++; else { const o = i1 * 3 + 3; r += color[o]; g += color[o + 1]; b += color[o + 2]; }
      } else {
        for (let j = 0; j < ss; j++) {
          let idx = (y * ss + j) * sw + x * ss;
          for (let i = 0; i < ss; i++, idx++) {
            if (depth[idx] === clear) { uncovered++; continue; }
            const o = idx * 3;
            r += color[o]; g += color[o + 1]; b += color[o + 2];
          }
        }
      }
      if (uncovered !== 0 && v !== null) {
        const a = x * ax + ay;
        const k = (((rowY + a * v.right[1]) / Math.sqrt(b2 + a * a)) * half + half + 0.5) | 0;
        const t = (k < 0 ? 0 : k > SKY_STEPS ? SKY_STEPS : k) * 3;
        r += table[t] * uncovered; g += table[t + 1] * uncovered; b += table[t + 2] * uncovered;
      }
      let R: number, G: number, B: number;
      if (!dither) {
        R = lut8[(r * scale + 0.5) | 0]; G = lut8[(g * scale + 0.5) | 0]; B = lut8[(b * scale + 0.5) | 0];
      } else {
        // Six 4-bit uniform thresholds from one hash of the position (lowbias32, a well-mixing
        // integer hash), two summed per channel: independent triangular thresholds 0..30.
        let h = Math.imul(x + 1, 0x9e3779b1) ^ Math.imul(y + top + 1, 0x85ebca77);
        h ^= h >>> 16; h = Math.imul(h, 0x7feb352d); h ^= h >>> 15; h = Math.imul(h, 0x846ca68b); h ^= h >>> 16;
        R = tpdf(lut16[(r * scale + 0.5) | 0], (h & 15) + ((h >>> 4) & 15));
        G = tpdf(lut16[(g * scale + 0.5) | 0], ((h >>> 8) & 15) + ((h >>> 12) & 15));
        B = tpdf(lut16[(b * scale + 0.5) | 0], ((h >>> 16) & 15) + ((h >>> 20) & 15));
      }
      const p = y * width + x;
      if (words !== null) words[p] = 0xff000000 | (B << 16) | (G << 8) | R;
      else {
        data[p * 4] = R; data[p * 4 + 1] = G; data[p * 4 + 2] = B; data[p * 4 + 3] = 255;
      }
    }
  }
}

const EMPTY = new Float32Array(3);
