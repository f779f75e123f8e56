/**
 * A PNG encoded in parts, so two threads can each compress half of a frame (a 1080p screenshot
 * takes ~100 ms to filter and deflate on one). pngjs, used elsewhere, compresses a whole image
 * as one stream; a zlib stream can instead be cut into independently deflated runs, each ended on
 * a byte boundary by a sync flush and the last by the final block, as pigz does, and the Adler-32
 * of the whole is combined from the parts'. Node's zlib gives the raw deflate and CRC-32; the
 * filter and the Adler-32 arithmetic are written here (a few lines each, no library covers them).
 */
import zlib from "node:zlib";
import { scratch } from "../../scene/render/scratch";

/**
 * One compressed run of filtered rows, with the Adler-32 and length of what it compresses, and
 * whether it holds RGB (an opaque image's alpha left out) or RGBA.
 */
export interface PngPart { bytes: Uint8Array; adler: number; length: number; rgb: boolean }

/**
 * Largest filtered part kept from call to call (per thread, scratch.ts): a 1080p half-frame's is
 * ~3 MB, and fresh memory costs a page fault per 4 KiB on first touch; a half of a 4096x4096 frame
 * (~25 MB) gets its own.
 */
const FILTERED_KEEP = 16 * 1024 * 1024;

const BASE = 65521;
/** Most bytes summed before the Adler-32 sums must be reduced (zlib's NMAX). */
const NMAX = 5552;

function adler32(data: Uint8Array): number {
  let a = 1, b = 0;
  for (let i = 0; i < data.length; ) {
    const end = Math.min(data.length, i + NMAX);
    for (; i < end; i++) { a += data[i]; b += a; }
    a %= BASE; b %= BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** Adler-32 of A followed by B from theirs and B's length (zlib's adler32_combine). */
function adler32Combine(adlerA: number, adlerB: number, lengthB: number): number {
  const rem = lengthB % BASE;
  let sum1 = adlerA & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (adlerB & 0xffff) + BASE - 1;
  sum2 += ((adlerA >>> 16) & 0xffff) + ((adlerB >>> 16) & 0xffff) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= BASE * 2) sum2 -= BASE * 2;
  if (sum2 >= BASE) sum2 -= BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

/** Share of zero bytes (sampled) above which filtered rows are taken for flat and run-length coded. */
const FLAT_ZEROS = 0.8;

/**
 * Filters rows top .. top + rows - 1 of an RGBA8 image with PNG's Sub filter (each byte minus the
 * one a pixel to its left: smooth renders compress well with it) and deflates them fast:
 * screenshots are written often and read rarely. After the Sub filter a dithered render is mostly
 * small differences in no repeating order, which Huffman coding alone packs best; flat areas (no
 * dither, pure black or white) are runs of zeros, which want run-length matches (Z_RLE). The share
 * of zero bytes tells them apart (dithered renders ~0.65, flat ones over 0.94). On 1080p renders,
 * against level 1's general matching: dithered 51 vs 94 ms and 1.8 vs 2.4 MB, flat 15 vs 16 ms and
 * 0.39 vs 0.42 MB (Huffman alone would make flat ones 1.25 MB). `last` ends the zlib stream.
 * `opaque` (the caller knows every alpha is 255, as in every render) leaves alpha out: a quarter
 * fewer bytes to filter, checksum and compress, for the same pixels.
 */
export function encodePngPart(rgba: Uint8Array | Uint8ClampedArray, width: number, top: number, rows: number, last: boolean, opaque = false): PngPart {
  const stride = width * 4, bpp = opaque ? 3 : 4, out = width * bpp;
  const size = rows * (out + 1);
  const filtered = scratch("png-filtered", Uint8Array, size, FILTERED_KEEP);
  for (let y = 0; y < rows; y++) {
    const src = (top + y) * stride, dst = y * (out + 1);
    filtered[dst] = 1; // filter type: Sub
    if (opaque) {
      let r = 0, g = 0, b = 0;
      for (let i = src, o = dst + 1, end = src + stride; i < end; i += 4, o += 3) {
        const R = rgba[i], G = rgba[i + 1], B = rgba[i + 2];
        filtered[o] = R - r; filtered[o + 1] = G - g; filtered[o + 2] = B - b;
        r = R; g = G; b = B;
      }
    } else {
      for (let i = 0; i < 4 && i < stride; i++) filtered[dst + 1 + i] = rgba[src + i];
      for (let i = 4; i < stride; i++) filtered[dst + 1 + i] = rgba[src + i] - rgba[src + i - 4];
    }
  }
  const flush = last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH;
  let zeros = 0;
  for (let i = 0; i < filtered.length; i += 16) if (filtered[i] === 0) zeros++;
  const runs = zeros * 16 > filtered.length * FLAT_ZEROS;
  const strategy = runs ? zlib.constants.Z_RLE : zlib.constants.Z_HUFFMAN_ONLY;
  const bytes = zlib.deflateRawSync(filtered, { level: 1, strategy, finishFlush: flush });
  return { bytes, adler: adler32(filtered), length: filtered.length, rgb: opaque };
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG (8-bit RGB or RGBA, as the parts were encoded: all alike) from the parts of its rows, in
 * order; the last part must have ended the stream.
 */
export function assemblePng(width: number, height: number, parts: PngPart[]): Buffer {
  const rgb = parts[0].rgb;
  if (parts.some((p) => p.rgb !== rgb)) throw new Error("assemblePng: parts mix RGB and RGBA");
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = rgb ? 2 : 6; // colour type: RGB or RGBA
  let adler = parts[0].adler;
  for (let k = 1; k < parts.length; k++) adler = adler32Combine(adler, parts[k].adler, parts[k].length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler, 0);
  // zlib header: deflate, 32 KiB window, fastest compression (0x78 0x01 passes the FCHECK test).
  const stream = Buffer.concat([Buffer.from([0x78, 0x01]), ...parts.map((p) => p.bytes), trailer]);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", stream), chunk("IEND", new Uint8Array(0))]);
}
