/** Per-mesh bounding boxes, computed once per frame for the draw order and the occluders. */
import type { RenderMesh } from "./types";

/** Bounding boxes of meshes: [x0, y0, z0, x1, y1, z1] each, NaN for a mesh with no finite vertex. */
export function meshBoxes(meshes: readonly RenderMesh[]): Float64Array {
  const b = new Float64Array(meshes.length * 6).fill(NaN);
  meshes.forEach((mesh, i) => {
    const p = mesh?.positions;
    if (!p) return;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let k = 0; k + 2 < p.length; k += 3) {
      const x = p[k], y = p[k + 1], z = p[k + 2];
      if (!(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z))) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
    if (x0 <= x1) b.set([x0, y0, z0, x1, y1, z1], i * 6);
  });
  return b;
}
