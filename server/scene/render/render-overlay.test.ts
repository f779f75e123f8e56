// Invariant: overlays are off unless asked for; the grid marks the ground without hiding objects,
// axes are drawn in their colours from the origin, and labels put legible text near their objects.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { glyphInk, GLYPH_H, GLYPH_W } from "./font";
import { groundQuad, lookAt, pixel, quadZ } from "./test-helpers";
import type { RenderInput } from "./types";

const base = (extra: Partial<RenderInput> = {}): RenderInput => ({
  width: 200, height: 150, camera: lookAt([0, 4, 8], [0, 0, 0], 50),
  meshes: [groundQuad(0, 30, [0.5, 0.5, 0.5, 1]), quadZ(0, -0.5, 0, 0.5, 1, [0.8, 0.1, 0.1, 1])],
  lights: [{ type: "directional", direction: [0.3, -1, -0.5], color: [1, 1, 1], intensity: 1 }], ...extra,
});
const differing = (a: Uint8ClampedArray, b: Uint8ClampedArray) => {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  return n;
};

describe("overlays", () => {
  it("changes nothing when none is asked for", () => {
    expect(differing(renderScene(base()).data, renderScene(base({ overlay: {} })).data)).toBe(0);
  });

  it("draws grid lines that run off the image right up to its edges, and nothing past them", () => {
    // Near the ground, the lines along z run from the bottom edge towards the horizon, and the
    // lines across (x) from the left edge to the right one: only their part on screen is stepped.
    const low = { camera: lookAt([0.3, 0.6, 3], [0.3, 0.3, -2], 70), dither: false };
    const plain = renderScene(base(low)), grid = renderScene(base({ ...low, overlay: { grid: true } }));
    const changedIn = (x0: number, x1: number, y0: number, y1: number) => {
      let n = 0;
      for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) if (pixel(grid, x, y)[0] !== pixel(plain, x, y)[0]) n++;
      return n;
    };
    expect(changedIn(0, 1, 80, 149)).toBeGreaterThan(3); // the left edge column pair
    expect(changedIn(198, 199, 80, 149)).toBeGreaterThan(3); // the right one
    expect(changedIn(0, 199, 148, 149)).toBeGreaterThan(3); // the bottom rows
  });

  it("draws grid lines on the ground but not over the object in front of them", () => {
    const plain = renderScene(base()), grid = renderScene(base({ overlay: { grid: true } }));
    expect(differing(plain.data, grid.data)).toBeGreaterThan(500);
    // The red quad's centre (in front of the grid line x = 0) is unchanged.
    expect(pixel(grid, 100, 70)).toEqual(pixel(plain, 100, 70));
    // Lines are lighter than the ground they are drawn on.
    let lighter = 0;
    for (let i = 0; i < grid.data.length; i += 4) if (grid.data[i] > plain.data[i] + 8) lighter++;
    expect(lighter).toBeGreaterThan(300);
  });

  it("draws each axis in its colour from the origin", () => {
    const axes = [{ direction: [1, 0, 0] as [number, number, number], color: [1, 0, 0] as [number, number, number], label: "X" }];
    const out = renderScene(base({ meshes: [groundQuad(0, 30, [0.5, 0.5, 0.5, 1])], overlay: { axes } }));
    // Somewhere right of the origin's projection (100, ~85) a row is strongly red.
    let red = 0;
    for (let y = 70; y < 100; y++) for (let x = 105; x < 150; x++) { const p = pixel(out, x, y); if (p[0] > 200 && p[1] < 90) red++; }
    expect(red).toBeGreaterThan(20);
  });

  it("writes a label's text just above its position", () => {
    const out = renderScene(base({ meshes: [groundQuad(0, 30, [0.5, 0.5, 0.5, 1])], overlay: { labels: [{ text: "HI", position: [0, 0, 0] }] } }));
    // Find the white ink and check it spells the glyphs: each ink pixel of "H" must be white.
    let white = 0, minX = 1e9, minY = 1e9;
    for (let y = 0; y < out.height; y++) for (let x = 0; x < out.width; x++) {
      const p = pixel(out, x, y);
      if (p[0] === 255 && p[1] === 255 && p[2] === 255) { white++; minX = Math.min(minX, x); minY = Math.min(minY, y); }
    }
    let inkH = 0;
    for (let gy = 0; gy < GLYPH_H; gy++) for (let gx = 0; gx < GLYPH_W; gx++) if (glyphInk(72, gx, gy)) inkH++;
    let inkI = 0;
    for (let gy = 0; gy < GLYPH_H; gy++) for (let gx = 0; gx < GLYPH_W; gx++) if (glyphInk(73, gx, gy)) inkI++;
    expect(white).toBe(inkH + inkI); // scale 1 below 540 px: one pixel per font pixel
    for (let gy = 0; gy < GLYPH_H; gy++) for (let gx = 0; gx < GLYPH_W; gx++) {
      const p = pixel(out, minX + gx, minY + gy);
      expect(p[0] === 255 && p[1] === 255 && p[2] === 255).toBe(glyphInk(72, gx, gy));
    }
    expect(minY).toBeLessThan(85); // above the origin's projection
  });

  it("stacks labels that would overlap instead of drawing them over each other", () => {
    const two = renderScene(base({ meshes: [], overlay: { labels: [{ text: "AAAA", position: [0, 0, 0] }, { text: "BBBB", position: [0, 0, 0] }] } }));
    const rows = new Set<number>();
    for (let y = 0; y < two.height; y++) for (let x = 0; x < two.width; x++) { const p = pixel(two, x, y); if (p[0] === 255 && p[1] === 255 && p[2] === 255) rows.add(y); }
    expect(rows.size).toBe(2 * GLYPH_H);
  });
});
