/**
 * Colour encoding: scene-linear radiance -> tone-mapped display-linear -> sRGB 8-bit.
 *
 * Tone mapping is the ACES filmic curve as fitted by Narkowicz (2015): one rational
 * function per channel, a toe that keeps shadows from going muddy and a shoulder that rolls
 * highlights off smoothly instead of clipping them (it reaches 1.0 only at 7.2x the
 * exposed input). Reinhard (x / (1 + x)) was the alternative; it flattens mid-tones and never
 * gives whites that look white. Per-channel mapping keeps saturated colours saturated
 * (a pure red stays pure red), which matters for a preview meant to show material colours.
 *
 * sRGB encoding goes through a lookup table, because a Math.pow per channel per pixel
 * would cost more than the rest of shading combined.
 */

/** Table resolution; 4096 steps leave no gaps in the dark end of 8-bit sRGB. */
export const SRGB_LUT_SIZE = 4096;

let lut: Uint8Array | null = null;

/** Returns the shared display-linear -> sRGB8 table (index = round(linear * (SIZE - 1))). */
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

let lut16: Uint16Array | null = null;

/**
 * The same table in sixteenths of an sRGB8 step (0..4080), for ordered dithering: adding a
 * threshold and shifting right by 4 rounds up or down with the right probabilities, so a
 * smooth gradient spreads over neighbouring 8-bit levels instead of showing bands.
 */
export function srgbLut16(): Uint16Array {
  if (lut16) return lut16;
  const t = new Uint16Array(SRGB_LUT_SIZE);
  for (let i = 0; i < SRGB_LUT_SIZE; i++) {
    const c = i / (SRGB_LUT_SIZE - 1);
    const s = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
    t[i] = Math.round(s * 255 * 16);
  }
  lut16 = t;
  return t;
}

/** Encodes one display-linear channel (clamped to 0..1, NaN -> 0) exactly as the renderer does. */
export function linearToSrgb8(c: number): number {
  const v = c > 0 ? (c < 1 ? c : 1) : 0;
  return srgbLut()[(v * (SRGB_LUT_SIZE - 1) + 0.5) | 0];
}

/** ACES filmic (Narkowicz fit) of an already exposed scene-linear value, clamped to 0..1 (NaN -> 0). */
export function toneMap(x: number): number {
  if (!(x > 0)) return 0;
  const y = (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14);
  return y < 1 ? y : 1;
}

/** Scene-linear channel -> sRGB8 through exposure and the tone curve (what a flat-shaded pixel shows). */
export function sceneToSrgb8(c: number, exposure = 1): number {
  return linearToSrgb8(toneMap(c * exposure));
}

/** True on little-endian hosts, where one Uint32 write stores bytes R,G,B,A in order. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Packs 8-bit RGBA into a Uint32 whose memory byte order is R,G,B,A on this host. */
export function packRgba8(r: number, g: number, b: number, a: number): number {
  return LITTLE_ENDIAN ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
}
