// Invariant: triangles crossing the near plane are clipped (never dropped, never wrapped through
// the eye), geometry entirely behind the eye or outside near/far draws nothing, and huge on-screen
// triangles are handled by guard-band clipping.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { BG as BG_LINEAR, groundQuad, mesh, pixel, quadZ, scene, srgbOf, uvSphere } from "./test-helpers";
import type { RenderOutput } from "./types";

const BG = srgbOf(BG_LINEAR);

function countBackground(out: RenderOutput): number {
  let n = 0;
  for (let i = 0; i < out.data.length; i += 4) if (out.data[i] === BG[0] && out.data[i + 1] === BG[1] && out.data[i + 2] === BG[2]) n++;
  return n;
}

describe("near-plane clipping", () => {
  it.each([
    { name: "level", forward: [0, 0, -1] as [number, number, number], yaw: 0 },
    { name: "turned sideways", forward: [1, 0, -0.3] as [number, number, number], yaw: 1 },
  ])("fills every pixel below the horizon of a huge ground quad extending behind the camera ($name)", ({ forward }) => {
    const W = 120, H = 80;
    const ground = groundQuad(0, 1000, [0.2, 0.6, 0.2, 1]);
    const out = renderScene(scene([ground], {
      width: W,
      height: H,
      camera: { eye: [0, 1.6, 0], forward, up: [0, 1, 0], fovYDeg: 60 },
      lights: [{ type: "directional", direction: [0, -1, 0], color: [1, 1, 1], intensity: 1 }],
    }));
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const [r, g] = pixel(out, x, y);
        if (y >= H / 2 + 1) expect(g > r + 40, `ground at ${x},${y}`).toBe(true); // green ground, not background
        if (y <= H / 2 - 2) expect(pixel(out, x, y)).toEqual(BG);
      }
    }
  });

  it("clips a triangle with one vertex behind the camera instead of dropping or wrapping it", () => {
    // Floor triangle from 5 m ahead to 5 m behind the eye: it must cover the lower middle of the view
    // and nothing above the horizon (a wrapped vertex would smear it across the top).
    const tri = mesh([-5, -1, -5, 5, -1, -5, 0, -1, 5], [0, 1, 2], [1, 1, 1, 1]);
    const out = renderScene(scene([tri], { camera: { eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60 } }));
    expect(pixel(out, 32, 47)).not.toEqual(BG);
    expect(pixel(out, 32, 40)).not.toEqual(BG);
    for (let y = 0; y < 23; y++) for (let x = 0; x < 64; x++) expect(pixel(out, x, y)).toEqual(BG);
  });

  it("draws nothing for a triangle entirely behind the camera", () => {
    const tri = mesh([-5, -1, 1, 5, -1, 1, 0, 3, 2], [0, 1, 2], [1, 1, 1, 1]);
    const out = renderScene(scene([tri], { camera: { eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60 } }));
    expect(countBackground(out)).toBe(64 * 48);
  });

  it("shows the inside of a double-sided sphere everywhere when the camera is inside it", () => {
    const out = renderScene(scene([uvSphere([0, 0, 0], 3, 24, 16, [1, 0.5, 0, 1])], { camera: { eye: [0.2, 0.1, 0.3], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 90 } }));
    expect(countBackground(out)).toBe(0);
  });

  it("covers the whole view with a huge quad just beyond the near plane (guard band)", () => {
    const wall = quadZ(-0.06, -1e4, -1e4, 1e4, 1e4, [0, 0, 1, 1]);
    const out = renderScene(scene([wall], { camera: { eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60 } }));
    expect(countBackground(out)).toBe(0);
  });

  it.each([
    { name: "closer than a custom near plane", z: -0.5, near: 1, far: undefined },
    { name: "beyond the far plane", z: -50, near: undefined, far: 20 },
  ])("hides a quad $name", ({ z, near, far }) => {
    const q = quadZ(z, -100, -100, 100, 100, [1, 1, 1, 1]);
    const visible = renderScene(scene([q], { camera: { eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60 } }));
    expect(countBackground(visible)).toBe(0);
    const clipped = renderScene(scene([q], { camera: { eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60, near, far } }));
    expect(countBackground(clipped)).toBe(64 * 48);
  });
});
