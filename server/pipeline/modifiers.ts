/**
 * Baking Blender's mirror and array modifiers into a mesh (apply_modifiers), in the object's local
 * space, in stack order. Mirror keeps the original and adds a copy reflected across the plane of
 * the given local axis (winding reversed so the copy still faces out); array makes `count` copies,
 * each shifted by `offset` times the mesh's bounding-box size (Blender's relative offset).
 * Vertices on the mirror plane are not merged (Blender merges them by default), so vertex counts
 * differ from Blender's while triangles, shape and placement are the same.
 */
import type { MeshData } from "../scene/primitives";
import type { Modifier } from "../scene/types";

const AXIS = { x: 0, y: 1, z: 2 } as const;

function mirror(mesh: MeshData, axis: 0 | 1 | 2): MeshData {
  const n = mesh.positions.length;
  const positions = new Float32Array(n * 2), normals = new Float32Array(n * 2);
  positions.set(mesh.positions);
  normals.set(mesh.normals);
  for (let i = 0; i < n; i++) {
    const flip = i % 3 === axis ? -1 : 1;
    positions[n + i] = flip * mesh.positions[i];
    normals[n + i] = flip * mesh.normals[i];
  }
  const m = mesh.indices.length, offset = n / 3;
  const indices = new Uint32Array(m * 2);
  indices.set(mesh.indices);
  for (let t = 0; t < m; t += 3) {
    indices[m + t] = mesh.indices[t] + offset;
    indices[m + t + 1] = mesh.indices[t + 2] + offset;
    indices[m + t + 2] = mesh.indices[t + 1] + offset;
  }
  return { positions, normals, indices };
}

function array(mesh: MeshData, count: number, relative: { x: number; y: number; z: number }): MeshData {
  const p = mesh.positions;
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i++) {
    const a = i % 3;
    if (p[i] < min[a]) min[a] = p[i];
    if (p[i] > max[a]) max[a] = p[i];
  }
  const size = p.length ? [max[0] - min[0], max[1] - min[1], max[2] - min[2]] : [0, 0, 0];
  const step = [relative.x * size[0], relative.y * size[1], relative.z * size[2]];
  const n = p.length, m = mesh.indices.length, vertices = n / 3;
  const positions = new Float32Array(n * count), normals = new Float32Array(n * count), indices = new Uint32Array(m * count);
  for (let k = 0; k < count; k++) {
    for (let i = 0; i < n; i++) positions[k * n + i] = p[i] + k * step[i % 3];
    normals.set(mesh.normals, k * n);
    for (let t = 0; t < m; t++) indices[k * m + t] = mesh.indices[t] + k * vertices;
  }
  return { positions, normals, indices };
}

/** The mesh with every modifier of the stack applied, in order. */
export function applyModifiers(mesh: MeshData, modifiers: readonly Modifier[]): MeshData {
  let out = mesh;
  for (const mod of modifiers) out = mod.type === "mirror" ? mirror(out, AXIS[mod.axis ?? "x"]) : array(out, mod.count ?? 2, mod.offset ?? { x: 1, y: 0, z: 0 });
  return out;
}

/** How a modifier reads in a warning: `mirror (x)`, `array (3 × {1, 0, 0})`. */
export function describeModifier(mod: Modifier): string {
  if (mod.type === "mirror") return `mirror (${mod.axis ?? "x"})`;
  const o = mod.offset ?? { x: 1, y: 0, z: 0 };
  return `array (${mod.count ?? 2} × relative offset {${o.x}, ${o.y}, ${o.z}})`;
}
