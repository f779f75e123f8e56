// Invariant: texture images decode to the RGBA8 pngjs reads, and hostile ones decode to nothing
// (their meshes draw flat) without allocating what their header claims: oversized headers are
// refused before decoding, an interlaced PNG's data may not inflate past what its size allows,
// and the cache and each frame stay within their byte budget.
import { readFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import jpeg from "jpeg-js";
import { MAX_TEXTURE_SIDE, TextureCache, decodeTexture, jpegSize } from "./texture-images";

const GRID = readFileSync("tests/fixtures/assets/09_texture_transform/09_tiny_grid.png");

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
/** A PNG built by hand: RGBA8 (colour type 6), `interlace` 0 or 1, IDAT = deflate(raw). */
function png(width: number, height: number, raw: Buffer, interlace = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, interlace], 8);
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
const encoded = (id: string, bytes: Buffer, mimeType = "image/png") => ({ id, mimeType, data: bytes.toString("base64") });

describe("texture image decoding", () => {
  it("decodes a PNG to pngjs's RGBA8, in shared memory", () => {
    const img = decodeTexture(GRID, "image/png")!;
    expect([img.width, img.height]).toEqual([8, 8]);
    expect(Buffer.from(img.data).equals(PNG.sync.read(GRID).data)).toBe(true);
    expect(img.data.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  it("decodes a small interlaced PNG (one pixel: only Adam7's first pass)", () => {
    const img = decodeTexture(png(1, 1, Buffer.from([0, 10, 20, 30, 255]), 1), "image/png")!;
    expect([...img.data]).toEqual([10, 20, 30, 255]);
  });

  it("refuses an interlaced PNG whose data inflates far past its size (a decompression bomb)", () => {
    const bomb = png(2, 2, Buffer.alloc(4_000_000), 1);
    expect(bomb.length).toBeLessThan(10_000);
    expect(decodeTexture(bomb, "image/png")).toBeNull();
  });

  it("refuses a header larger than the cap without decoding it, and a header its data does not fill", () => {
    const huge = png(MAX_TEXTURE_SIDE + 1, 1, Buffer.alloc(10));
    expect(decodeTexture(huge, "image/png")).toBeNull();
    const claims = png(60_000, 60_000, Buffer.alloc(10)); // 14 GB if believed
    expect(decodeTexture(claims, "image/png")).toBeNull();
    // Within the cap but its data missing: pngjs would hand back 64 MiB, mostly uninitialised memory.
    expect(decodeTexture(png(4096, 4096, Buffer.alloc(100)), "image/png") === null).toBe(true);
  });

  it("decodes a JPEG to RGBA8 in shared memory, within JPEG's loss of the pixels encoded", () => {
    const [w, h] = [16, 8];
    const pixels = Buffer.alloc(w * h * 4);
    for (let i = 0; i < w * h; i++) pixels.set(i % w < 8 ? [200, 40, 40, 255] : [40, 40, 200, 255], i * 4);
    const file = jpeg.encode({ width: w, height: h, data: pixels }, 95).data;
    expect(jpegSize(file)).toEqual({ width: w, height: h });
    const img = decodeTexture(file, "image/jpeg")!;
    expect([img.width, img.height]).toEqual([w, h]);
    expect(img.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Left half red, right half blue (JPEG is lossy: within a few levels away from the edge).
    const at = (x: number, y: number) => [...img.data.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)];
    expect(at(2, 4)[0]).toBeGreaterThan(180);
    expect(at(13, 4)[2]).toBeGreaterThan(180);
    expect(at(13, 4)[0]).toBeLessThan(70);
  });

  it("refuses a JPEG whose frame header claims more than the cap, without decoding it", () => {
    const file = Buffer.from(jpeg.encode({ width: 8, height: 8, data: Buffer.alloc(256, 128) }, 90).data);
    const sof = file.findIndex((b, i) => b === 0xff && file[i + 1] === 0xc0);
    expect(sof).toBeGreaterThan(0);
    const claims = Buffer.from(file);
    claims.writeUInt16BE(60_000, sof + 5); // height
    claims.writeUInt16BE(60_000, sof + 7); // width: 14 GB if believed
    expect(jpegSize(claims)).toEqual({ width: 60_000, height: 60_000 });
    expect(decodeTexture(claims, "image/jpeg")).toBeNull(); // decoding would allocate 14 GB
    const wide = Buffer.from(file);
    wide.writeUInt16BE(MAX_TEXTURE_SIDE + 1, sof + 7);
    expect(decodeTexture(wide, "image/jpeg")).toBeNull();
  });

  it("leaves garbage out (flat colour)", () => {
    expect(decodeTexture(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), "image/jpeg")).toBeNull();
    expect(decodeTexture(Buffer.from("not a png at all, not at all, not at all"), "image/png")).toBeNull();
    expect(decodeTexture(GRID.subarray(0, 60), "image/png")).toBeNull();
  });
});

describe("texture cache", () => {
  it("decodes an image once and hands the same pixels to the next frame", () => {
    const cache = new TextureCache();
    const a = cache.imagesFor([encoded("image/a", GRID)]);
    const b = cache.imagesFor([encoded("image/a", GRID)]);
    expect(b["image/a"]).toBe(a["image/a"]);
    expect(cache.size).toBe(8 * 8 * 4);
  });

  it("keeps each frame and itself within the budget", () => {
    const cache = new TextureCache(600); // room for two 8x8 images (256 bytes each), not three
    const frame = cache.imagesFor(["a", "b", "c"].map((k) => encoded(`image/${k}`, GRID)));
    expect(Object.keys(frame)).toEqual(["image/a", "image/b"]);
    expect(cache.size).toBeLessThanOrEqual(600);
    // The next frame asks for c: it fits now, and the least recently used one leaves the cache.
    expect(Object.keys(cache.imagesFor([encoded("image/c", GRID)]))).toEqual(["image/c"]);
    expect(cache.size).toBeLessThanOrEqual(600);
  });

  it("leaves out images that fail, and those the frame's budget cannot hold, before decoding them", () => {
    const cache = new TextureCache(1000);
    const frame = cache.imagesFor([encoded("image/big", png(64, 64, Buffer.alloc(64 * 257))), encoded("image/j", GRID, "image/jpeg"), encoded("image/ok", GRID)]);
    expect(Object.keys(frame)).toEqual(["image/ok"]);
  });
});
