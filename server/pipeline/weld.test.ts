// Invariant: welding merges exactly the vertices whose position and normal are identical, keeps
// every triangle's corners and normals, and leaves a mesh with nothing to merge untouched.
import { describe, expect, it } from "vitest";
import { primitiveMesh, type MeshData } from "../scene/primitives";
import { weld } from "./weld";

/** One vertex per triangle corner, as FBXLoader delivers meshes. */
function unindexed(m: MeshData): MeshData {
  const n = m.indices.length;
  const positions = new Float32Array(n * 3), normals = new Float32Array(n * 3);
  m.indices.forEach((v, i) => {
    positions.set(m.positions.subarray(v * 3, v * 3 + 3), i * 3);
    normals.set(m.normals.subarray(v * 3, v * 3 + 3), i * 3);
  });
  return { positions, normals, indices: Uint32Array.from({ length: n }, (_, i) => i) };
}

const corners = (m: MeshData) => Array.from(m.indices, (v) => [...m.positions.subarray(v * 3, v * 3 + 3), ...m.normals.subarray(v * 3, v * 3 + 3)].join());

describe("weld", () => {
  it.each(["Cube", "Sphere", "Cylinder"] as const)("re-indexes an unindexed %s to its original vertex count, corner for corner", (type) => {
    const original = primitiveMesh("blender", type);
    const welded = weld(unindexed(original));
    expect(welded.positions.length).toBeLessThanOrEqual(original.positions.length);
    expect(welded.indices.length).toBe(original.indices.length);
    expect(corners(welded)).toEqual(corners(original));
  });

  it("keeps vertices apart whose normals differ (a cube's hard edges)", () => {
    const cube = weld(unindexed(primitiveMesh("godot", "Cube")));
    expect(cube.positions.length / 3).toBe(24);
  });

  it("returns a mesh with nothing to merge as it is", () => {
    const m = primitiveMesh("godot", "Plane");
    expect(weld(m)).toBe(m);
  });
});
