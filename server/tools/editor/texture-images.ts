/**
 * Decoding the images a screenshot's textures use, for the software renderer (which takes RGBA8
 * and stays pure). Runs on the screenshot worker thread, never on the event loop.
 *
 * Budgets, because an image record is whatever a user imported: the side is capped at
 * MAX_TEXTURE_SIDE and checked in the PNG header BEFORE anything is allocated, the compressed
 * data is inflated once with an output cap to check it holds exactly what the header says (pngjs
 * caps only non-interlaced data, and fills a short one from uninitialised memory), and a frame's decoded images and the cache each stay under TEXTURE_BUDGET_BYTES. An image
 * that breaks a budget or fails to decode is left out, and its meshes are drawn in their flat base
 * colour. JPEGs are decoded by jpeg-js (pure JavaScript, with its own resolution and memory caps),
 * their side checked in the frame header first, like a PNG's.
 */
import { inflateSync } from "node:zlib";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import type { RenderImage, RenderInput } from "../../scene/render";
import { textureImageIds } from "../../scene/render-view";
import type { ImageRecord, SceneState } from "../../scene/types";

/** Largest texture side decoded (4096² RGBA8 = 64 MiB). */
export const MAX_TEXTURE_SIDE = 4096;
/** Decoded bytes one frame may use, and the cache may keep between frames. */
export const TEXTURE_BUDGET_BYTES = 256 * 1024 * 1024;

/** An image as the scene stores it (ImageRecord): base64 of the file's bytes. */
export interface EncodedImage { id: string; mimeType: string; data: string }

/** Images the cache remembers at most (failures included, so a bad image is not decoded every frame). */
const MAX_ENTRIES = 1024;
/** The stored images a render input's textures name (those the state lacks are left out: flat colour). */
export function encodedImagesFor(state: SceneState, input: RenderInput): EncodedImage[] {
  return textureImageIds(input).flatMap((id) => {
    const record = state.get(id) as ImageRecord | undefined;
    return record?.type === "image" ? [{ id, mimeType: record.mimeType, data: record.data }] : [];
  });
}

const SIGNATURE = "89504e470d0a1a0a";
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Width and height from a PNG's header, or null when it is not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 33) return null;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.subarray(0, 8).toString("hex") !== SIGNATURE || b.toString("latin1", 12, 16) !== "IHDR") return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/**
 * Width and height from a JPEG's frame header (the first SOFn segment), or null when it is not a
 * JPEG or the header cannot be found within the bytes.
 */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  for (let at = 2; at + 4 <= bytes.length; ) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xff) { at++; continue; } // fill byte
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) { at += 2; continue; } // no length
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    if (length < 2) return null;
    // Start of frame: every SOFn except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return null;
      return { height: (bytes[at + 5] << 8) | bytes[at + 6], width: (bytes[at + 7] << 8) | bytes[at + 8] };
    }
    if (marker === 0xda) return null; // image data before any frame header
    at += 2 + length;
  }
  return null;
}

/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/** Bytes a PNG's image data inflates to: one filter byte plus the pixels' bytes per row (of each pass). */
function rawSize(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (Math.ceil((w * bitsPerPixel) / 8) + 1) : 0);
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce((n, [x0, y0, dx, dy]) => n + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

/**
 * Whether the image data inflates to what the header says: no more (a decompression bomb; pngjs
 * caps only non-interlaced data) and no less (pngjs then fills the rest from uninitialised memory).
 */
function dataFits(b: Buffer, width: number, height: number): boolean {
  const channels = CHANNELS[b[25]];
  if (channels === undefined) return false;
  const expected = rawSize(width, height, channels * b[24], b[28] === 1);
  const parts: Buffer[] = [];
  for (let at = 8; at + 12 <= b.length; ) {
    const length = b.readUInt32BE(at);
    if (at + 12 + length > b.length) return false;
    if (b.toString("latin1", at + 4, at + 8) === "IDAT") parts.push(b.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  try {
    return inflateSync(Buffer.concat(parts), { maxOutputLength: expected + 1024 }).length >= expected;
  } catch {
    return false;
  }
}

/** RGBA8 pixels copied into shared memory, so a second render thread reads them without a copy. */
function shared(width: number, height: number, pixels: Uint8Array): RenderImage {
  const data = new Uint8Array(new SharedArrayBuffer(pixels.length));
  data.set(pixels);
  return { width, height, data };
}

function decodeJpeg(bytes: Uint8Array): RenderImage | null {
  const size = jpegSize(bytes);
  if (!size || size.width < 1 || size.height < 1 || size.width > MAX_TEXTURE_SIDE || size.height > MAX_TEXTURE_SIDE) return null;
  try {
    const mp = (MAX_TEXTURE_SIDE * MAX_TEXTURE_SIDE) / 1e6;
    // jpeg-js checks every frame it meets against these too (a file may hold more than one).
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: mp, maxMemoryUsageInMB: 256 });
    if (image.width !== size.width || image.height !== size.height || image.data.length !== image.width * image.height * 4) return null;
    return shared(image.width, image.height, image.data);
  } catch {
    return null;
  }
}

/** Decodes a PNG or JPEG to RGBA8 in shared memory, or null when it breaks a budget or does not decode. */
export function decodeTexture(bytes: Uint8Array, mimeType: string): RenderImage | null {
  if (mimeType === "image/jpeg") return decodeJpeg(bytes);
  if (mimeType !== "image/png") return null;
  const size = pngSize(bytes);
  if (!size || size.width < 1 || size.height < 1 || size.width > MAX_TEXTURE_SIDE || size.height > MAX_TEXTURE_SIDE) return null;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!dataFits(b, size.width, size.height)) return null;
  try {
    const png = PNG.sync.read(b);
    if (png.width !== size.width || png.height !== size.height || png.data.length !== png.width * png.height * 4) return null;
    return shared(png.width, png.height, png.data);
  } catch {
    return null;
  }
}

/**
 * Decoded images by id, kept between frames up to the budget (least recently used go first).
 * Ids are content hashes, so an id always means the same pixels; failures are remembered too.
 */
export class TextureCache {
  private readonly entries = new Map<string, RenderImage | null>();
  private bytes = 0;

  constructor(private readonly budget = TEXTURE_BUDGET_BYTES) {}

  /** The decoded images of one frame; those past the frame's budget or undecodable are left out. */
  imagesFor(images: readonly EncodedImage[]): Record<string, RenderImage> {
    const out: Record<string, RenderImage> = {};
    let used = 0;
    for (const { id, mimeType, data } of images) {
      if (typeof id !== "string" || typeof data !== "string" || Object.hasOwn(out, id)) continue;
      let image = this.entries.get(id);
      if (image === undefined) {
        if (!this.claimsToFit(data, mimeType, this.budget - used)) continue; // too big for what is left of this frame
        image = decodeTexture(Buffer.from(data, "base64"), mimeType);
        this.remember(id, image);
      } else {
        this.entries.delete(id); // most recently used last
        this.entries.set(id, image);
      }
      if (!image || used + image.data.length > this.budget) continue;
      used += image.data.length;
      out[id] = image;
    }
    return out;
  }

  /** Decoded bytes the cache holds. */
  get size(): number {
    return this.bytes;
  }

  /** Whether the header's size fits what is left of the frame's budget (checked before decoding). */
  private claimsToFit(data: string, mimeType: string, left: number): boolean {
    if (mimeType !== "image/png" && mimeType !== "image/jpeg") return true; // decodeTexture refuses it without decoding
    // A JPEG's frame header may follow metadata segments: look in the first 64 KiB.
    const head = mimeType === "image/png" ? pngSize(Buffer.from(data.slice(0, 48), "base64")) : jpegSize(Buffer.from(data.slice(0, 87384), "base64"));
    return !head || head.width * head.height * 4 <= left;
  }

  private remember(id: string, image: RenderImage | null): void {
    this.entries.set(id, image);
    this.bytes += image?.data.length ?? 0;
    for (const [old, img] of this.entries) {
      if ((this.bytes <= this.budget && this.entries.size <= MAX_ENTRIES) || old === id) break;
      this.entries.delete(old);
      this.bytes -= img?.data.length ?? 0;
    }
  }
}
