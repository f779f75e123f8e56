/**
 * Real geometry for the built-in primitive types, in each app's own space and default size:
 * Unity's Plane is 10 m and its Cube 1 m; Blender's and Godot's are 2 m (their own defaults).
 * Primitives are generated on demand and cached, never stored in versions.
 */
import { appToCanonical, transformDirection } from "./math";
import type { AppId, PrimitiveType } from "./types";

/** Triangle mesh with per-vertex normals (flat triples). */
export interface MeshData { positions: Float32Array; normals: Float32Array; indices: Uint32Array }

const SEGMENTS = 24;
const RINGS = 16;

/** Builder for canonical (Y-up, right-handed, counter-clockwise) geometry. */
class MeshBuilder {
  p: number[] = [];
  n: number[] = [];
  i: number[] = [];
  vertex(x: number, y: number, z: number, nx: number, ny: number, nz: number): number {
    this.p.push(x, y, z);
    this.n.push(nx, ny, nz);
    return this.p.length / 3 - 1;
  }
  quad(a: number, b: number, c: number, d: number) {
    this.i.push(a, b, c, a, c, d);
  }
}

function box(half: number): MeshBuilder {
  const m = new MeshBuilder();
  // Each face: normal axis and two tangent axes chosen so (u × v) = normal (counter-clockwise).
  const faces: [number[], number[], number[]][] = [
    [[1, 0, 0], [0, 0, -1], [0, 1, 0]],
    [[-1, 0, 0], [0, 0, 1], [0, 1, 0]],
    [[0, 1, 0], [1, 0, 0], [0, 0, -1]],
    [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]],
    [[0, 0, -1], [-1, 0, 0], [0, 1, 0]],
  ];
  for (const [n, u, v] of faces) {
    const corner = (su: number, sv: number) =>
      m.vertex(
        (n[0] + su * u[0] + sv * v[0]) * half,
        (n[1] + su * u[1] + sv * v[1]) * half,
        (n[2] + su * u[2] + sv * v[2]) * half,
        n[0], n[1], n[2],
      );
    m.quad(corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1));
  }
  return m;
}

function plane(half: number): MeshBuilder {
  const m = new MeshBuilder();
  const a = m.vertex(-half, 0, half, 0, 1, 0);
  const b = m.vertex(half, 0, half, 0, 1, 0);
  const c = m.vertex(half, 0, -half, 0, 1, 0);
  const d = m.vertex(-half, 0, -half, 0, 1, 0);
  m.quad(a, b, c, d);
  return m;
}

function sphere(radius: number): MeshBuilder {
  const m = new MeshBuilder();
  for (let r = 0; r <= RINGS; r++) {
    const phi = (r / RINGS) * Math.PI;
    for (let s = 0; s <= SEGMENTS; s++) {
      const theta = (s / SEGMENTS) * Math.PI * 2;
      const x = Math.sin(phi) * Math.sin(theta), y = Math.cos(phi), z = Math.sin(phi) * Math.cos(theta);
      m.vertex(x * radius, y * radius, z * radius, x, y, z);
    }
  }
  const row = SEGMENTS + 1;
  for (let r = 0; r < RINGS; r++)
    for (let s = 0; s < SEGMENTS; s++) {
      const a = r * row + s, b = a + row;
      if (r > 0) m.i.push(a, b, a + 1);
      if (r < RINGS - 1) m.i.push(a + 1, b, b + 1);
    }
  return m;
}

function cylinder(radius: number, halfHeight: number): MeshBuilder {
  const m = new MeshBuilder();
  for (let s = 0; s < SEGMENTS; s++) {
    const t0 = (s / SEGMENTS) * Math.PI * 2, t1 = ((s + 1) / SEGMENTS) * Math.PI * 2;
    const [x0, z0, x1, z1] = [Math.sin(t0), Math.cos(t0), Math.sin(t1), Math.cos(t1)];
    const a = m.vertex(x0 * radius, -halfHeight, z0 * radius, x0, 0, z0);
    const b = m.vertex(x1 * radius, -halfHeight, z1 * radius, x1, 0, z1);
    const c = m.vertex(x1 * radius, halfHeight, z1 * radius, x1, 0, z1);
    const d = m.vertex(x0 * radius, halfHeight, z0 * radius, x0, 0, z0);
    m.quad(a, b, c, d);
  }
  for (const side of [1, -1]) {
    const centre = m.vertex(0, side * halfHeight, 0, 0, side, 0);
    const ring: number[] = [];
    for (let s = 0; s < SEGMENTS; s++) {
      const t = (s / SEGMENTS) * Math.PI * 2;
      ring.push(m.vertex(Math.sin(t) * radius, side * halfHeight, Math.cos(t) * radius, 0, side, 0));
    }
    for (let s = 0; s < SEGMENTS; s++) {
      const a = ring[s], b = ring[(s + 1) % SEGMENTS];
      if (side > 0) m.i.push(centre, a, b);
      else m.i.push(centre, b, a);
    }
  }
  return m;
}

const SIZES: Record<AppId, { plane: number; cube: number; sphere: number; cylinder: [number, number] }> = {
  unity: { plane: 5, cube: 0.5, sphere: 0.5, cylinder: [0.5, 1] },
  blender: { plane: 1, cube: 1, sphere: 1, cylinder: [1, 1] },
  godot: { plane: 1, cube: 1, sphere: 1, cylinder: [1, 1] },
};

/** Converts canonical geometry into the app's space. */
function toAppSpace(app: AppId, m: MeshBuilder): MeshData {
  // appToCanonical is orthogonal, so its inverse is its transpose.
  const c = appToCanonical(app);
  const inv = new Float64Array(16);
  for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) inv[k * 4 + r] = c[r * 4 + k];
  const positions = new Float32Array(m.p.length), normals = new Float32Array(m.n.length);
  for (let v = 0; v < m.p.length; v += 3) {
    positions.set(transformDirection(inv, m.p[v], m.p[v + 1], m.p[v + 2]), v);
    normals.set(transformDirection(inv, m.n[v], m.n[v + 1], m.n[v + 2]), v);
  }
  // The index order is kept: mirrored into Unity's left-handed space, counter-clockwise faces
  // become clockwise ones, which is what Unity treats as front faces.
  return { positions, normals, indices: Uint32Array.from(m.i) };
}

const cache = new Map<string, MeshData>();

/** The mesh of a primitive in an app's space. Cached: callers must not mutate it. */
export function primitiveMesh(app: AppId, type: PrimitiveType): MeshData {
  const key = `${app}:${type}`;
  let mesh = cache.get(key);
  if (!mesh) {
    const s = SIZES[app];
    const built =
      type === "Plane" ? plane(s.plane)
      : type === "Cube" ? box(s.cube)
      : type === "Sphere" ? sphere(s.sphere)
      : cylinder(s.cylinder[0], s.cylinder[1]);
    mesh = toAppSpace(app, built);
    cache.set(key, mesh);
  }
  return mesh;
}
