// Invariant: primitives are real, closed geometry in each app's own space and default size,
// with unit normals pointing outwards.
import { describe, expect, it } from "vitest";
import { primitiveMesh } from "./primitives";
import { APPS } from "./types";

const extent = (p: Float32Array, axis: number) => {
  let lo = Infinity, hi = -Infinity;
  for (let i = axis; i < p.length; i += 3) { lo = Math.min(lo, p[i]); hi = Math.max(hi, p[i]); }
  return hi - lo;
};

describe("primitive meshes", () => {
  it.each([
    ["unity", "Cube", 12, [1, 1, 1]], ["blender", "Cube", 12, [2, 2, 2]], ["godot", "Cube", 12, [2, 2, 2]],
    ["unity", "Plane", 2, [10, 0, 10]], ["blender", "Plane", 2, [2, 2, 0]], ["godot", "Plane", 2, [2, 0, 2]],
    ["unity", "Cylinder", 96, [1, 2, 1]], ["blender", "Cylinder", 96, [2, 2, 2]],
  ] as const)("%s %s has %i triangles and the app's size", (app, type, triangles, size) => {
    const m = primitiveMesh(app, type);
    expect(m.indices.length / 3).toBe(triangles);
    for (let axis = 0; axis < 3; axis++) expect(extent(m.positions, axis)).toBeCloseTo(size[axis], 5);
  });

  it.each(APPS)("%s spheres have outward unit normals", (app) => {
    const m = primitiveMesh(app, "Sphere");
    expect(m.indices.length / 3).toBeGreaterThan(500);
    for (let i = 0; i < m.positions.length; i += 3) {
      const n = [m.normals[i], m.normals[i + 1], m.normals[i + 2]];
      expect(Math.hypot(n[0], n[1], n[2])).toBeCloseTo(1, 5);
      expect(n[0] * m.positions[i] + n[1] * m.positions[i + 1] + n[2] * m.positions[i + 2]).toBeGreaterThan(0);
    }
  });
});
