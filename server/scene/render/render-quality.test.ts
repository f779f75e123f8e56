// Invariant: edges are anti-aliased (supersampling gives in-between colours, a straight edge stays
// straight), silhouettes sit where the projection puts them (no notched corners), the sky is a
// gradient, and an ordinary scene does not clip to white.
import { describe, expect, it } from "vitest";
import { renderScene, supersampleFor } from "./index";
import { groundQuad, lookAt, pixel, quadZ } from "./test-helpers";
import type { RenderInput } from "./types";

const head = (extra: Partial<RenderInput> = {}): RenderInput => ({
  width: 64, height: 48, camera: lookAt([0, 0, 5], [0, 0, 0]),
  meshes: [quadZ(0, -1, -1, 1.03, 1, [1, 0, 0, 1])],
  lights: [{ type: "directional", direction: [0, 0, -1], color: [1, 1, 1], intensity: 1 }], background: [0, 0, 1, 1], dither: false, ...extra,
});

describe("image quality", () => {
  it("blends edge pixels between the surface and the background when supersampling", () => {
    const row = (ss: number) => {
      const out = renderScene(head({ supersample: ss }));
      return new Set(Array.from({ length: 64 }, (_, x) => pixel(out, x, 24).join()));
    };
    expect(row(1).size).toBeLessThanOrEqual(3); // background, surface (+ at most one odd pixel)
    expect(row(2).size).toBeGreaterThan(row(1).size);
  });

  it("lowers the sample count for huge images instead of running out of memory", () => {
    expect(supersampleFor(1280, 720, undefined)).toBe(2);
    expect(supersampleFor(4096, 4096, 3)).toBe(1);
    expect(supersampleFor(64, 48, 9)).toBe(4);
  });

  it("puts a cube's top corners where the projection does (no notches)", () => {
    // README's view of a 1 m cube; the outline is checked against the analytic projection of its
    // eight corners, row by row, to within one pixel.
    const eye: [number, number, number] = [0, 3, -8];
    const fwd: [number, number, number] = [0, -Math.sin(Math.PI / 12), Math.cos(Math.PI / 12)];
    const up: [number, number, number] = [0, Math.cos(Math.PI / 12), Math.sin(Math.PI / 12)];
    const W = 640, H = 360, f = H / 2 / Math.tan(Math.PI / 6);
    const pos: number[] = [], idx: number[] = [];
    const corners: [number, number, number][] = [];
    for (let i = 0; i < 8; i++) corners.push([i & 1 ? 0.5 : -0.5, i & 2 ? 1 : 0, i & 4 ? 0.5 : -0.5]);
    for (const c of corners) pos.push(...c);
    // Faces as quads of corner indices (counter-clockwise seen from outside).
    for (const [a, b, c, d] of [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]]) idx.push(a, b, c, a, c, d);
    const cube = { positions: new Float32Array(pos), indices: new Uint32Array(idx), color: [1, 0, 0, 1] as [number, number, number, number] };
    const out = renderScene({ width: W, height: H, camera: { eye, forward: fwd, up, fovYDeg: 60 }, meshes: [cube], lights: [], background: [0, 0, 1, 1], ambient: 1 });
    const proj = corners.map((c) => {
      const d = [c[0] - eye[0], c[1] - eye[1], c[2] - eye[2]];
      const z = d[0] * fwd[0] + d[1] * fwd[1] + d[2] * fwd[2];
      return [W / 2 + (f * d[0]) / z, H / 2 - (f * (d[0] * up[0] + d[1] * up[1] + d[2] * up[2])) / z];
    });
    // Visible outline: top-back edge (corners 6, 7), top-front (2, 3), bottom-front (0, 1).
    const halfWidthAt = (y: number) => {
      // Linear interpolation of the outline's half-width between the projected edge rows.
      const rows = [[proj[6][1], proj[7][0] - W / 2], [proj[2][1], proj[3][0] - W / 2], [proj[0][1], proj[1][0] - W / 2]];
      for (let k = 0; k + 1 < rows.length; k++) {
        const [y0, w0] = rows[k], [y1, w1] = rows[k + 1];
        if (y >= y0 && y <= y1) return w0 + ((w1 - w0) * (y - y0)) / (y1 - y0);
      }
      return NaN;
    };
    let checked = 0;
    for (let y = Math.ceil(proj[6][1]) + 1; y < Math.floor(proj[0][1]) - 1; y++) {
      let left = -1, right = -1;
      for (let x = 0; x < W; x++) {
        const p = pixel(out, x, y);
        if (p[0] > p[2]) { if (left < 0) left = x; right = x; }
      }
      const expected = halfWidthAt(y + 0.5);
      expect(Math.abs((right - left + 1) / 2 - expected), `row ${y}`).toBeLessThan(1);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });

  it("draws the sky as a gradient: paler at the horizon than overhead", () => {
    // Level camera, 90 degree view: the top row looks 45 degrees up, row 30 just above the horizon, the bottom row down.
    const out = renderScene({ width: 32, height: 64, camera: lookAt([0, 1, 0], [0, 1, -1], 90), meshes: [], lights: [] });
    const top = pixel(out, 16, 0), horizon = pixel(out, 16, 30), below = pixel(out, 16, 63);
    expect(horizon[0]).toBeGreaterThan(top[0] + 20); // horizon whiter
    expect(top[2]).toBeGreaterThan(top[0] + 20); // zenith blue
    expect(below[0]).toBeLessThan(horizon[0] - 40); // the ground below the horizon is dark
  });

  it("keeps a white ground under a strong sun below white (tone mapping, not clipping)", () => {
    const out = renderScene({ width: 32, height: 32, camera: lookAt([0, 3, 3], [0, 0, 0], 50), meshes: [groundQuad(0, 10, [1, 1, 1, 1])], lights: [{ type: "directional", direction: [0, -1, 0], color: [1, 1, 1], intensity: 3 }] });
    const p = pixel(out, 16, 16);
    expect(p[0]).toBeLessThan(255);
    expect(p[0]).toBeGreaterThan(200);
  });
});

describe("dithering", () => {
  it("spreads a flat colour over 8-bit levels at most one away, with the right average, deterministically", () => {
    const input: RenderInput = { width: 32, height: 32, camera: lookAt([0, 0, 1], [0, 0, 0]), meshes: [], lights: [], background: [0.3, 0.3, 0.3, 1] };
    const flat = renderScene({ ...input, dither: false }), dithered = renderScene(input);
    expect(renderScene(input).data).toEqual(dithered.data);
    const levels = new Set<number>();
    let sum = 0;
    for (let i = 0; i < dithered.data.length; i += 4) { levels.add(dithered.data[i]); sum += dithered.data[i]; }
    expect(levels.size).toBeLessThanOrEqual(3);
    expect(Math.max(...[...levels].map((l) => Math.abs(l - flat.data[0])))).toBeLessThanOrEqual(1);
    expect(Math.abs(sum / (32 * 32) - flat.data[0])).toBeLessThanOrEqual(0.5);
    const black = renderScene({ ...input, background: [0, 0, 0, 1] });
    expect(Math.max(...black.data.filter((_, i) => i % 4 !== 3))).toBe(0);
  });
});
