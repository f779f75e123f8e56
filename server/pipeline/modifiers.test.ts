// Invariant: baking keeps every triangle facing outwards: mirror doubles the mesh across the plane
// of its axis (reflected positions and normals, reversed winding); array repeats it `count` times,
// each copy shifted by the relative offset times the mesh's size; stacks apply in order.
import { describe, expect, it } from "vitest";
import { primitiveMesh, type MeshData } from "../scene/primitives";
import { applyModifiers, describeModifier } from "./modifiers";

/** Each triangle's geometric normal agrees with its vertex normals (the face points outwards). */
function facesOutward(m: MeshData): boolean {
  for (let t = 0; t < m.indices.length; t += 3) {
    const [a, b, c] = [m.indices[t] * 3, m.indices[t + 1] * 3, m.indices[t + 2] * 3];
    const u = [0, 1, 2].map((k) => m.positions[b + k] - m.positions[a + k]), v = [0, 1, 2].map((k) => m.positions[c + k] - m.positions[a + k]);
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    if (n[0] * m.normals[a] + n[1] * m.normals[a + 1] + n[2] * m.normals[a + 2] <= 0) return false;
  }
  return true;
}

const bounds = (m: MeshData) => [0, 1, 2].map((k) => {
  const xs = m.positions.filter((_, i) => i % 3 === k);
  return [Math.min(...xs), Math.max(...xs)];
});

describe("modifiers", () => {
  const cube = primitiveMesh("blender", "Cube");
  const shifted: MeshData = { ...cube, positions: cube.positions.map((v, i) => (i % 3 === 0 ? v + 3 : v)) };

  it("mirror reflects across the axis plane and keeps faces outward", () => {
    const out = applyModifiers(shifted, [{ type: "mirror", axis: "x" }]);
    expect(out.indices.length).toBe(cube.indices.length * 2);
    expect(bounds(out)[0]).toEqual([-4, 4]);
    expect(facesOutward(shifted)).toBe(true);
    expect(facesOutward(out)).toBe(true);
  });

  it("array repeats the mesh along the relative offset", () => {
    const out = applyModifiers(cube, [{ type: "array", count: 3, offset: { x: 0, y: 1.5, z: 0 } }]);
    expect(out.indices.length).toBe(cube.indices.length * 3);
    expect(bounds(out)[1]).toEqual([-1, 1 + 2 * 1.5 * 2]);
    expect(facesOutward(out)).toBe(true);
  });

  it("applies a stack in order and leaves the input untouched", () => {
    const before = Array.from(shifted.positions);
    const out = applyModifiers(shifted, [{ type: "array", count: 2 }, { type: "mirror", axis: "x" }]);
    expect(out.indices.length).toBe(cube.indices.length * 4);
    expect(bounds(out)[0]).toEqual([-6, 6]);
    expect(Array.from(shifted.positions)).toEqual(before);
  });

  it("describes modifiers for warnings", () => {
    expect(describeModifier({ type: "mirror", axis: "z" })).toBe("mirror (z)");
    expect(describeModifier({ type: "array", count: 4, offset: { x: 0, y: 2, z: 0 } })).toBe("array (4 × relative offset {0, 2, 0})");
  });
});
