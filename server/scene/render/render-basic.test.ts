// Invariant: geometry in front of the camera is drawn in its lit material colour, every other
// pixel is the background, and the output is an opaque sRGB RGBA8 buffer of the requested size.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { BG, pixel, quadZ, scene, srgbOf } from "./test-helpers";
import type { Rgba } from "./types";

const srgb = srgbOf;
const DEFAULT_BACKGROUND = BG;

describe("basic rendering", () => {
  it("shows a red quad in front of the camera at the centre and the background at the corners", () => {
    const out = renderScene(scene([quadZ(0, -1, -1, 1, 1, [1, 0, 0, 1])]));
    const [r, g, b] = pixel(out, 32, 24);
    expect(r).toBeGreaterThan(180);
    expect(g).toBeLessThan(60);
    expect(b).toBeLessThan(60);
    const bg = srgb(DEFAULT_BACKGROUND);
    for (const [x, y] of [[0, 0], [63, 0], [0, 47], [63, 47]]) expect(pixel(out, x, y)).toEqual(bg);
  });

  it.each([
    { name: "red", color: [1, 0, 0, 1] as Rgba, channel: 0 },
    { name: "green", color: [0, 1, 0, 1] as Rgba, channel: 1 },
    { name: "blue", color: [0, 0, 1, 1] as Rgba, channel: 2 },
  ])("renders a pure $name material lit head-on by a white light clearly $name", ({ color, channel }) => {
    const px = pixel(renderScene(scene([quadZ(0, -1, -1, 1, 1, color)])), 32, 24);
    for (let c = 0; c < 3; c++) {
      if (c === channel) expect(px[c]).toBeGreaterThan(180);
      else expect(px[c]).toBeLessThan(60);
    }
  });

  it("returns an opaque width*height*4 buffer, top row first", () => {
    // Quad only in the top half of the view: top rows hit it, bottom rows do not.
    const out = renderScene(scene([quadZ(0, -10, 0.5, 10, 10, [1, 1, 1, 1])], { width: 40, height: 30 }));
    expect(out.width).toBe(40);
    expect(out.height).toBe(30);
    expect(out.data).toBeInstanceOf(Uint8ClampedArray);
    expect(out.data.length).toBe(40 * 30 * 4);
    for (let i = 3; i < out.data.length; i += 4) expect(out.data[i]).toBe(255);
    expect(pixel(out, 20, 0)).not.toEqual(pixel(out, 20, 29));
    expect(pixel(out, 20, 29)).toEqual(srgb(DEFAULT_BACKGROUND));
  });

  it.each([
    { name: "the test background", background: BG, expected: srgb(BG) },
    { name: "a custom linear background", background: [1, 0.5, 0, 0] as Rgba, expected: srgb([1, 0.5, 0]) },
  ])("fills an empty scene with $name (treated as scene-linear, tone-mapped, alpha forced to 255)", ({ background, expected }) => {
    const out = renderScene(scene([], { background }));
    for (let i = 0; i < out.data.length; i += 4) {
      expect([out.data[i], out.data[i + 1], out.data[i + 2], out.data[i + 3]]).toEqual(expected);
    }
  });

  it("lights a surface no light reaches by the sky alone, in proportion to the ambient strength", () => {
    const unlit = (ambient?: number) => pixel(renderScene(scene([quadZ(0, -1, -1, 1, 1, [1, 0.5, 0.25, 1])], { lights: [], ambient })), 32, 24);
    expect(unlit(0)).toEqual([0, 0, 0, 255]);
    const half = unlit(0.5), full = unlit(undefined);
    expect(half[0]).toBeGreaterThan(40);
    expect(full[0]).toBeGreaterThan(half[0] + 10);
    expect(full[0]).toBeGreaterThan(full[1]); // still the material's hue
    expect(full[1]).toBeGreaterThan(full[2]);
  });

  it("treats translucent materials as opaque", () => {
    const solid = renderScene(scene([quadZ(0, -1, -1, 1, 1, [1, 0, 0, 1])]));
    const out = renderScene(scene([quadZ(0, -1, -1, 1, 1, [1, 0, 0, 0.1])]));
    expect(pixel(out, 32, 24)).toEqual(pixel(solid, 32, 24));
  });
});
