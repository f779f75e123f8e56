import { describe, expect, it } from "vitest";
import { changedRegions, compareImages, heatImage } from "./mark-changes";

function image(w: number, h: number, paint?: (x: number, y: number) => [number, number, number] | boolean) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = (y * w + x) * 4;
    data[i + 3] = 255;
    const c = paint?.(x, y);
    if (c === true) data[i] = 255;
    else if (Array.isArray(c)) [data[i], data[i + 1], data[i + 2]] = c;
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

describe("compareImages with a lighting change", () => {
  // A ground that darkens towards the horizon, and a sky that a light does not touch.
  const ground = (y: number, gain: number): [number, number, number] => {
    const v = Math.min(255, Math.round((80 + y) * gain));
    return [v, v, Math.min(255, v + 10)];
  };
  const scene = (gain: number, square?: [number, number]) => image(128, 128, (x, y) => {
    if (square && x >= square[0] && x < square[0] + 10 && y >= square[1] && y < square[1] + 10) return [200, 30, 30];
    return y < 40 ? [120, 150, 200] : ground(y, gain);
  });

  it("does not box the whole image when a light got brighter; what moved is still boxed", () => {
    const before = scene(1, [20, 80]), after = scene(1.4, [90, 90]);
    const c = compareImages(before, after, 128, 128);
    expect(c.share).toBeGreaterThan(0.6); // the whole ground changed...
    expect(c.lighting!.explained).toBeGreaterThan(0.6); // ...as one tone change
    // ...so the boxes are where the red square was and is, not one box round everything.
    expect(c.rects).toHaveLength(2);
    for (const r of c.rects) expect(r.w * r.h).toBeLessThanOrEqual(24 * 24);
    expect(c.rects.some((r) => r.x <= 20 && r.x + r.w >= 30 && r.y <= 80 && r.y + r.h >= 90)).toBe(true);
    expect(c.rects.some((r) => r.x <= 90 && r.x + r.w >= 100 && r.y <= 90 && r.y + r.h >= 100)).toBe(true);
  });

  it("boxes nothing for a change of lighting alone, and the heat map marks it in the tone-change colours", () => {
    const before = scene(1), after = scene(1.3);
    const c = compareImages(before, after, 128, 128);
    expect(c.rects).toEqual([]);
    expect(c.pixels).toBeGreaterThan(128 * 60);
    const heat = heatImage(after, c);
    const at = (x: number, y: number) => [...heat.slice((y * 128 + x) * 4, (y * 128 + x) * 4 + 3)];
    const [r, , b] = at(64, 100);
    expect(b).toBeGreaterThan(r); // blue: changed as the lighting did
    expect(at(64, 10)).toEqual(at(64, 10).map(() => at(64, 10)[0])); // the sky did not change: grey
  });

  it("keeps boxing a local change when little of the image changed", () => {
    const c = compareImages(scene(1), scene(1, [50, 50]), 128, 128);
    expect(c.lighting).toBeUndefined();
    expect(c.rects).toEqual([{ x: 48, y: 48, w: 16, h: 16 }]);
  });
});
