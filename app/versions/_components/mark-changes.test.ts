import { describe, expect, it } from "vitest";
import { changedRegions } from "./mark-changes";

function image(w: number, h: number, paint?: (x: number, y: number) => boolean) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = (y * w + x) * 4;
    data[i + 3] = 255;
    if (paint?.(x, y)) data[i] = 255;
  }
  return data;
}

describe("changedRegions", () => {
  it("finds nothing in identical images", () => {
    expect(changedRegions(image(64, 32), image(64, 32), 64, 32)).toEqual({ rects: [], pixels: 0 });
  });

  it("boxes each separate changed area, tile-aligned and covering it", () => {
    const b = image(64, 64, (x, y) => (x >= 5 && x < 12 && y >= 5 && y < 9) || (x >= 50 && y >= 50));
    const { rects, pixels } = changedRegions(image(64, 64), b, 64, 64);
    expect(pixels).toBe(7 * 4 + 14 * 14);
    expect(rects).toHaveLength(2);
    expect(rects).toContainEqual({ x: 0, y: 0, w: 16, h: 16 });
    expect(rects).toContainEqual({ x: 48, y: 48, w: 16, h: 16 });
  });
});
