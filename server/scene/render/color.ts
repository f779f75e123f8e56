/**
 * Linear -> sRGB 8-bit encoding through a lookup table, because a Math.pow
 * per channel per pixel would cost more than the rest of shading combined.
 */

/** Table resolution; 4096 steps leave no gaps in the dark end of 8-bit sRGB. */
export const SRGB_LUT_SIZE = 4096;

let lut: Uint8Array | null = null;

/** Returns the shared linear -> sRGB8 table (index = round(linear * (SIZE - 1))). */
export function srgbLut(): Uint8Array {
  if (lut) return lut;
  const t = new Uint8Array(SRGB_LUT_SIZE);
  for (let i = 0; i < SRGB_LUT_SIZE; i++) t[i] = encode(i / (SRGB_LUT_SIZE - 1));
  lut = t;
  return t;
}

function encode(c: number): number {
  const s = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
  return Math.round(s * 255);
}

/** Encodes one linear channel (clamped to 0..1, NaN -> 0) exactly as the renderer does. */
export function linearToSrgb8(c: number): number {
  const v = c > 0 ? (c < 1 ? c : 1) : 0;
  return srgbLut()[(v * (SRGB_LUT_SIZE - 1) + 0.5) | 0];
}

/** True on little-endian hosts, where one Uint32 write stores bytes R,G,B,A in order. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Packs 8-bit RGBA into a Uint32 whose memory byte order is R,G,B,A on this host. */
export function packRgba8(r: number, g: number, b: number, a: number): number {
  return LITTLE_ENDIAN ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
}
