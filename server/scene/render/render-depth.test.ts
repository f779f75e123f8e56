// Invariant: the per-pixel depth buffer makes the nearest surface win regardless of draw order,
// and the fill rule covers a tessellated surface with no cracks between adjacent triangles.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { BG, mesh, pixel, quadZ, scene, srgbOf } from "./test-helpers";

const RED = [1, 0, 0, 1] as const;
const GREEN = [0, 1, 0, 1] as const;

describe("depth", () => {
  const far = quadZ(-1, -1.5, -1.5, 1.5, 1.5, [...RED]);
  const near = quadZ(0.5, -3, -0.3, 0, 0.3, [...GREEN]); // covers the left part of the far quad
  it.each([
    { order: "far then near", meshes: [far, near] },
    { order: "near then far", meshes: [near, far] },
  ])("hides a far red quad behind a near green quad where they overlap ($order)", ({ meshes }) => {
    const out = renderScene(scene(meshes, { width: 96, height: 64 }));
    const [lr, lg] = pixel(out, 40, 32); // left of centre: overlap
    expect(lg).toBeGreaterThan(180);
    expect(lr).toBeLessThan(60);
    const [rr, rg] = pixel(out, 60, 32); // right of centre: far quad only
    expect(rr).toBeGreaterThan(180);
    expect(rg).toBeLessThan(60);
    const [tr, tg] = pixel(out, 40, 20); // above the near strip: far quad only
    expect(tr).toBeGreaterThan(180);
    expect(tg).toBeLessThan(60);
  });

  it("keeps the nearer of two intersecting quads on each side of their intersection", () => {
    // A quad tilted through the z = 0 plane: its left half is nearer than a flat quad, its right half farther.
    const tilted = mesh([-2, -1, 1, 2, -1, -1, 2, 1, -1, -2, 1, 1], [0, 1, 2, 0, 2, 3], [...GREEN]);
    const flat = quadZ(0, -2, -1, 2, 1, [...RED]);
    for (const meshes of [[tilted, flat], [flat, tilted]]) {
      const out = renderScene(scene(meshes, { width: 96, height: 64 }));
      expect(pixel(out, 30, 32)[1]).toBeGreaterThan(100); // green wins on the left
      expect(pixel(out, 66, 32)[0]).toBeGreaterThan(100); // red wins on the right
      expect(pixel(out, 66, 32)[1]).toBeLessThan(40);
    }
  });

  it.each([
    { name: "head-on", eye: [0, 0, 3] as [number, number, number] },
    { name: "oblique", eye: [1.3, 0.9, 1.7] as [number, number, number] },
  ])("covers a jittered 24x24 triangle grid with no cracks ($name)", ({ eye }) => {
    // A screen-filling plane tessellated into irregular triangles; any background pixel is a crack.
    const n = 24, size = 40;
    const pos: number[] = [];
    const idx: number[] = [];
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.8;
    for (let j = 0; j <= n; j++) {
      for (let i = 0; i <= n; i++) {
        const inner = i > 0 && i < n && j > 0 && j < n;
        pos.push(((i + (inner ? rnd() : 0)) / n - 0.5) * size, ((j + (inner ? rnd() : 0)) / n - 0.5) * size, 0);
      }
    }
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const a = j * (n + 1) + i;
        idx.push(a, a + 1, a + n + 2, a, a + n + 2, a + n + 1);
      }
    }
    const m = mesh(pos, idx, [0.5, 0.5, 0.5, 1]);
    const out = renderScene(scene([m], { width: 160, height: 120, camera: { eye, forward: [-eye[0], -eye[1], -eye[2]], up: [0, 1, 0], fovYDeg: 60 } }));
    const bgR = srgbOf(BG)[0];
    let holes = 0;
    for (let i = 0; i < out.data.length; i += 4) if (out.data[i] === bgR) holes++;
    expect(holes).toBe(0);
  });
});
