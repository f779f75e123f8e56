/**
 * Ambient occlusion from nearby objects, analytically: each compact mesh stands in as a sphere
 * of about its size, and a surface point's sky and ground-bounce light is dimmed by the share of
 * its cosine-weighted hemisphere those spheres cover, (n.d / |d|) (r / |d|)^2 for a sphere at d
 * (exact for a sphere above the horizon). This is what makes the ground darken under and beside
 * an object, and objects stand on the ground instead of floating, as in a path tracer's render,
 * at the cost of a few multiplications per shaded pixel and nearby object; a screen-space method
 * would need the neighbours of every band edge and shows halos at depth edges.
 *
 * The part of the hemisphere an object hides is not black: the object sends back its own colour
 * of the light it gets. Each occluder carries that bounce: its diffuse colour times the sky's
 * light, plus the directional lights' on the faces of its box that the point sees (weighted by
 * how large each looks from there), so ground beside a sunlit red cube turns faintly pink, as
 * Cycles shows (its first bounce, without the object's own shadowing).
 *
 * Flat or huge meshes (a ground plane, a room's walls) are not occluders: a sphere is a poor
 * stand-in for them, and their own faces are already the hemisphere model's "ground".
 */
import { LIGHT_DIRECTIONAL, LIGHT_STRIDE, type PackedLights } from "./lights";
import type { RenderMesh } from "./types";

/** An occluder's reach in its radii: beyond it the sphere covers under 1/16 of the hemisphere. */
export const REACH = 4;
/** A mesh whose box is thinner than this share of its longest side, or larger than MAX_OCCLUDER metres, occludes nothing. */
const MIN_THICKNESS = 0.1;
const MAX_OCCLUDER = 50;
/** Shares of the hemisphere too small to change an 8-bit pixel (1/512 of the ambient light). */
const MIN_COVER = 1 / 512;
/**
 * Floats per packed occluder: centre x, y, z, radius; box half sizes x, y, z; face areas (of the
 * faces across x, y, z); bounced sky light rgb; then the directional lights' bounced light rgb off
 * each face of the box, +x, -x, +y, -y, +z, -z. A face's light is the same wherever it is seen
 * from, so it is summed once per frame, not per pixel.
 */
const FACES_AT = 13;
export const OCC_STRIDE = FACES_AT + 18;



/**
 * For every mesh, the spheres of the other meshes close enough to dim it (null: none). A mesh's
 * own sphere, and those of other parts of its object, are never among them: closed convex shapes
 * do not occlude themselves.
 */
export function occludersByMesh(meshes: readonly RenderMesh[], box: Float64Array, lights: PackedLights, sky: Float64Array): (Occluders | null)[] {
  const spheres: Sphere[] = [];
  // What every occluder bounces, before its colour: the sky's light averaged over up and down, and
  // every directional light's on each face of its box (summed per face below).
  const skyLight = [0, 1, 2].map((k) => (sky[9 + k] + sky[12 + k]) / 2);
  const suns: number[][] = [];
  for (let li = 0, o = 0; li < lights.count; li++, o += LIGHT_STRIDE) {
    const L = lights.data;
    if (L[o] === LIGHT_DIRECTIONAL) suns.push([L[o + 1], L[o + 2], L[o + 3], L[o + 4], L[o + 5], L[o + 6]]);
  }
  for (let i = 0; i < meshes.length; i++) {
    const o = i * 6;
    if (Number.isNaN(box[o])) continue;
    const ex = box[o + 3] - box[o], ey = box[o + 4] - box[o + 1], ez = box[o + 5] - box[o + 2];
    const longest = Math.max(ex, ey, ez);
    if (!(longest > 0) || longest > MAX_OCCLUDER || Math.min(ex, ey, ez) < MIN_THICKNESS * longest) continue;
    // The sphere of the box's volume (radius 0.62 of a cube's side): near a face it hides about
    // as much of the sky as the face does (a ball's own box gives it a quarter more than its radius).
    const r = 0.62 * Math.cbrt(ex * ey * ez);
    const col = meshes[i].color, metallic = meshes[i].metallic;
    const diffuse = [0, 1, 2].map((k) => {
      const c = Array.isArray(col) && Number.isFinite(col[k]) ? Math.min(1, Math.max(0, col[k])) : 1;
      return c * (1 - (Number.isFinite(metallic) ? Math.min(1, Math.max(0, metallic as number)) : 0));
    });
    const bounce = new Array<number>(OCC_STRIDE - FACES_AT + 3).fill(0);
    for (let k = 0; k < 3; k++) bounce[k] = diffuse[k] * skyLight[k];
    // Each face's irradiance from every sun, max(0, n.l) times the light, times the object's colour.
    for (let face = 0; face < 6; face++) {
      const axis = face >> 1, sign = face & 1 ? -1 : 1;
      for (const sun of suns) {
        const e = Math.max(0, sign * sun[axis]);
        for (let k = 0; k < 3; k++) bounce[3 + face * 3 + k] += e * diffuse[k] * sun[3 + k];
      }
    }
    const shape = [ex / 2, ey / 2, ez / 2, ey * ez, ex * ez, ex * ey];
    const c = [(box[o] + box[o + 3]) / 2, (box[o + 1] + box[o + 4]) / 2, (box[o + 2] + box[o + 5]) / 2];
    spheres.push({ mesh: i, c, r, record: new Float64Array([c[0], c[1], c[2], r, ...shape, ...bounce]) });
  }
  if (spheres.length === 0) return meshes.map(() => null);
  const nearby = sphereIndex(spheres);
  return meshes.map((_, i) => {
    const o = i * 6;
    if (Number.isNaN(box[o])) return null;
    const near = nearby(box.subarray(o, o + 6)).filter((s) => {
      if (s.mesh === i || (meshes[i].object !== undefined && meshes[i].object === meshes[s.mesh].object)) return false;
      // Distance from the sphere's centre to the mesh's box, against the sphere's reach.
      let d2 = 0;
      for (let a = 0; a < 3; a++) {
        const lo = box[o + a], hi = box[o + 3 + a], v = s.c[a];
        const d = v < lo ? lo - v : v > hi ? v - hi : 0;
        d2 += d * d;
      }
      const reach = REACH * s.r;
      return d2 < reach * reach;
    });
    return near.length ? gridOf(near, box.subarray(o, o + 6)) : null;
  });
}

/** An occluder: the mesh it stands for, its centre and radius, and its packed record (OCC_STRIDE floats). */
interface Sphere { mesh: number; c: number[]; r: number; record: Float64Array }

/** Cells a box may span before a lookup just takes every sphere (a ground under the whole scene). */
const LOOKUP_CELLS_MAX = 512;

/**
 * The spheres whose reach box may touch a mesh's box, from a hash grid of cells as large as the
 * median reach: each mesh looking at every sphere cost 1.8 s a frame at 10,000 objects. A sphere
 * reaching over more than LOOKUP_CELLS_MAX cells is offered to every mesh instead.
 */
function sphereIndex(spheres: Sphere[]): (box: Float64Array) => Sphere[] {
  const reaches = spheres.map((s) => REACH * s.r).sort((a, b) => a - b);
  const size = Math.max(1e-3, reaches[reaches.length >> 1]);
  const cellsOf = (lo: number[], hi: number[]) => [0, 1, 2].map((a) => [Math.floor(lo[a] / size), Math.floor(hi[a] / size)]);
  const count = (r: number[][]) => r.reduce((n, [a, b]) => n * (b - a + 1), 1);
  // Cells by a hash of their coordinates; two cells sharing a key only share candidates, which
  // the exact distance test then sorts out.
  const key = (x: number, y: number, z: number) => (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(z, 83492791)) | 0;
  const cells = new Map<number, number[]>();
  const everywhere: number[] = [];
  spheres.forEach((s, k) => {
    const reach = REACH * s.r;
    const range = cellsOf(s.c.map((v) => v - reach), s.c.map((v) => v + reach));
    if (!(count(range) <= LOOKUP_CELLS_MAX)) return void everywhere.push(k);
    for (let x = range[0][0]; x <= range[0][1]; x++) {
      for (let y = range[1][0]; y <= range[1][1]; y++) {
        for (let z = range[2][0]; z <= range[2][1]; z++) {
          const h = key(x, y, z);
          const list = cells.get(h);
          if (list) list.push(k);
          else cells.set(h, [k]);
        }
      }
    }
  });
  const stamp = new Int32Array(spheres.length);
  let visit = 0;
  return (box) => {
    const range = cellsOf([box[0], box[1], box[2]], [box[3], box[4], box[5]]);
    if (!(count(range) <= LOOKUP_CELLS_MAX)) return spheres;
    visit++;
    const found: number[] = [];
    const take = (k: number) => {
      if (stamp[k] === visit) return;
      stamp[k] = visit;
      found.push(k);
    };
    everywhere.forEach(take);
    for (let x = range[0][0]; x <= range[0][1]; x++) {
      for (let y = range[1][0]; y <= range[1][1]; y++) {
        for (let z = range[2][0]; z <= range[2][1]; z++) cells.get(key(x, y, z))?.forEach(take);
      }
    }
    // In the spheres' own order, as a scan of all of them gives: the packed cells are the same.
    return found.sort((a, b) => a - b).map((k) => spheres[k]);
  };
}

/**
 * The occluders that can dim one mesh, sorted into a grid of cells over the mesh's box, so a
 * point looks only at the spheres whose reach covers its cell: the ground under 100 objects would
 * otherwise test all 100 at every pixel. Cells are a quarter of the smallest reach (at most
 * CELLS_MAX in all); a mesh no larger than that reach gets one cell.
 */
export interface Occluders {
  /** Grid origin, cells per unit length, cells along x, y, z. */
  readonly at: Float64Array;
  readonly dims: Int32Array;
  /** Packed spheres (OCC_STRIDE floats each) per cell, x fastest. */
  readonly cells: Float64Array[];
}

const CELLS_MAX = 16384;
const EMPTY = new Float64Array(0);

function gridOf(near: Sphere[], meshBox: Float64Array): Occluders {
  // The mesh's box, cut to where some sphere reaches.
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const s of near) {
    for (let a = 0; a < 3; a++) {
      lo[a] = Math.min(lo[a], s.c[a] - REACH * s.r);
      hi[a] = Math.max(hi[a], s.c[a] + REACH * s.r);
    }
  }
  for (let a = 0; a < 3; a++) {
    lo[a] = Math.max(lo[a], meshBox[a]);
    hi[a] = Math.max(lo[a], Math.min(hi[a], meshBox[3 + a]));
  }
  let smallest = Infinity;
  for (const s of near) smallest = Math.min(smallest, REACH * s.r);
  let cell = Math.max(1e-6, smallest / 4);
  const count = (c: number) => [0, 1, 2].map((a) => Math.max(1, Math.ceil((hi[a] - lo[a]) / c + 1e-9)));
  let dims = count(cell);
  while (dims[0] * dims[1] * dims[2] > CELLS_MAX) dims = count((cell *= 1.5));
  // A mesh no larger than the smallest reach (most objects) gains little from cells: one will do,
  // which also keeps 10,000 objects from each copying their neighbours into several cells.
  const extent = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  if (near.length <= 4 || extent <= smallest) dims = [1, 1, 1];
  const inv = dims.every((d) => d === 1) ? 0 : 1 / cell;
  // Which cells each sphere reaches, counted first so every cell gets one exact-size array.
  const counts = new Int32Array(dims[0] * dims[1] * dims[2]);
  const hits: number[][] = near.map((s) => {
    const reach = REACH * s.r, out: number[] = [];
    const from = [0, 1, 2].map((a) => Math.max(0, Math.floor((s.c[a] - reach - lo[a]) * inv)));
    const to = [0, 1, 2].map((a) => Math.min(dims[a] - 1, Math.floor((s.c[a] + reach - lo[a]) * inv)));
    for (let z = from[2]; z <= to[2]; z++) {
      for (let y = from[1]; y <= to[1]; y++) {
        for (let x = from[0]; x <= to[0]; x++) {
          if (inv !== 0 && !reaches(s.c, reach, lo, x, y, z, 1 / inv)) continue;
          const k = (z * dims[1] + y) * dims[0] + x;
          out.push(k);
          counts[k]++;
        }
      }
    }
    return out;
  });
  const cells = Array.from(counts, (n) => (n ? new Float64Array(n * OCC_STRIDE) : EMPTY));
  const filled = new Int32Array(counts.length);
  hits.forEach((list, i) => {
    for (const k of list) cells[k].set(near[i].record, filled[k]++ * OCC_STRIDE);
  });
  return { at: new Float64Array([lo[0], lo[1], lo[2], inv]), dims: new Int32Array(dims), cells };
}

/** Whether a sphere of radius `reach` at c touches cell (x, y, z) of side `size` of a grid at `lo`. */
function reaches(c: number[], reach: number, lo: number[], x: number, y: number, z: number, size: number): boolean {
  const gap = (v: number, at: number) => (v < at ? at - v : v > at + size ? v - at - size : 0);
  const dx = gap(c[0], lo[0] + x * size), dy = gap(c[1], lo[1] + y * size), dz = gap(c[2], lo[2] + z * size);
  return dx * dx + dy * dy + dz * dz < reach * reach;
}

/** The packed spheres that may dim point p (clamped into the grid: the mesh's own points are inside it up to rounding). */
export function occludersAt(g: Occluders, px: number, py: number, pz: number): Float64Array {
  const at = g.at, d = g.dims, inv = at[3];
  let x = Math.floor((px - at[0]) * inv), y = Math.floor((py - at[1]) * inv), z = Math.floor((pz - at[2]) * inv);
  // "!(x >= 0)" also takes NaN to the first cell.
  x = !(x >= 0) ? 0 : x >= d[0] ? d[0] - 1 : x;
  y = !(y >= 0) ? 0 : y >= d[1] ? d[1] - 1 : y;
  z = !(z >= 0) ? 0 : z >= d[2] ? d[2] - 1 : z;
  return g.cells[(z * d[1] + y) * d[0] + x];
}

/**
 * Share of the ambient light (0..1) that reaches point p with unit normal n past the packed
 * spheres, returned; the light the spheres bounce onto it instead is written to out[0..2].
 */
export function ambientVisibility(occ: Float64Array, px: number, py: number, pz: number, nx: number, ny: number, nz: number, out: Float64Array): number {
  let vis = 1, br = 0, bg = 0, bb = 0;
  for (let k = 0; k < occ.length; k += OCC_STRIDE) {
    const dx = occ[k] - px, dy = occ[k + 1] - py, dz = occ[k + 2] - pz, r = occ[k + 3];
    const l2 = dx * dx + dy * dy + dz * dz;
    const reach2 = r * r * (REACH * REACH);
    if (l2 >= reach2) continue;
    const cosA = nx * dx + ny * dy + nz * dz; // |d| cos
    if (cosA <= 0) continue;
    const l = Math.sqrt(l2);
    const r2 = r * r;
    let cover = (cosA / l) * (r2 < l2 ? r2 / l2 : 1);
    const w = 1 - l2 / reach2; // fades to zero at the reach, so there is no ring where it stops
    cover *= w * w;
    if (cover < MIN_COVER) continue;
    vis *= 1 - cover;
    // Bounce: sky light, plus the lights on the box faces p sees (across an axis p is beyond),
    // each weighted by the solid angle it fills seen from p, area x cos / d^2 with d and cos taken
    // from the face's centre (cos = p's height over the face's plane / d). That weight starts from
    // zero where p crosses a face's plane; weighting by p's whole distance along the axis (as
    // before) switched a face on at full weight there and drew a hard edge on the ground beside
    // objects, along their faces' planes.
    let r0 = 0, g0 = 0, b0 = 0;
    const sx = -dx, sy = -dy, sz = -dz; // centre -> p
    const hx = occ[k + 4], hy = occ[k + 5], hz = occ[k + 6];
    const ex = sx > hx ? sx - hx : sx < -hx ? -sx - hx : 0;
    const ey = sy > hy ? sy - hy : sy < -hy ? -sy - hy : 0;
    const ez = sz > hz ? sz - hz : sz < -hz ? -sz - hz : 0;
    let wx = 0, wy = 0, wz = 0;
    if (ex > 0) { const d2 = ex * ex + sy * sy + sz * sz; wx = (occ[k + 7] * ex) / (d2 * Math.sqrt(d2)); }
    if (ey > 0) { const d2 = sx * sx + ey * ey + sz * sz; wy = (occ[k + 8] * ey) / (d2 * Math.sqrt(d2)); }
    if (ez > 0) { const d2 = sx * sx + sy * sy + ez * ez; wz = (occ[k + 9] * ez) / (d2 * Math.sqrt(d2)); }
    const wsum = wx + wy + wz;
    if (wsum > 0) {
      const inv = 1 / wsum;
      const fx = k + FACES_AT + (sx > 0 ? 0 : 3), fy = k + FACES_AT + (sy > 0 ? 6 : 9), fz = k + FACES_AT + (sz > 0 ? 12 : 15);
      r0 = (wx * occ[fx] + wy * occ[fy] + wz * occ[fz]) * inv;
      g0 = (wx * occ[fx + 1] + wy * occ[fy + 1] + wz * occ[fz + 1]) * inv;
      b0 = (wx * occ[fx + 2] + wy * occ[fy + 2] + wz * occ[fz + 2]) * inv;
    }
    br += cover * (occ[k + 10] + r0); bg += cover * (occ[k + 11] + g0); bb += cover * (occ[k + 12] + b0);
  }
  out[0] = br; out[1] = bg; out[2] = bb;
  return vis;
}

const BOUNCE = new Float64Array(3);

/**
 * The occlusion at the point at = [px, py, pz, nx, ny, nz] (unit normal) through the grid into out: [visibility, bounce rgb]
 * (1, 0, 0, 0 where no sphere reaches).
 */
export function occlusionAt(g: Occluders, at: Float64Array, out: Float64Array): void {
  const cell = occludersAt(g, at[0], at[1], at[2]);
  if (cell.length === 0) {
    out[0] = 1; out[1] = 0; out[2] = 0; out[3] = 0;
    return;
  }
  out[0] = ambientVisibility(cell, at[0], at[1], at[2], at[3], at[4], at[5], BOUNCE);
  out[1] = BOUNCE[0]; out[2] = BOUNCE[1]; out[3] = BOUNCE[2];
}

/**
 * Floats per vertex of vertexOcclusion's result: the ambient visibility and the bounced light rgb.
 */
export const VERTEX_AO = 4;
/** A mesh's triangles must be at most this share of its smallest occluder's radius across to take occlusion per vertex. */
const VERTEX_AO_EDGE = 0.25;

/**
 * Ambient occlusion per vertex (VERTEX_AO floats each), for a mesh whose triangles are small next
 * to the spheres that dim it, or null when they are not (or it has no normals). Occlusion varies
 * over distances of about an occluder's radius, so across triangles a quarter of that wide the
 * rasterizer's interpolation of the vertices' values is within a level of 8-bit output of the per
 * pixel value, at a small fraction of the cost: a sphere of 800 triangles has ~440 vertices and
 * covers thousands of pixels. Big faces (a cube's, a ground's) keep the per-pixel evaluation.
 * `shared` gives the values already worked out for these vertices (another material slot of the
 * same object: the same vertices and occluders), returned when this part's triangles qualify.
 */
export function vertexOcclusion(mesh: RenderMesh, occ: Occluders, shared?: Float32Array): Float32Array | null {
  const pos = mesh.positions, nrm = mesh.normals, idx = mesh.indices;
  if (!pos || !idx || !nrm || nrm.length < pos.length) return null;
  const nv = Math.floor(pos.length / 3), nt = Math.floor(idx.length / 3);
  if (nt === 0) return null;
  let rmin = Infinity;
  for (const cell of occ.cells) for (let k = 3; k < cell.length; k += OCC_STRIDE) rmin = Math.min(rmin, cell[k]);
  // The largest triangle's side, were it equilateral (one big triangle among many small ones would
  // lose the occlusion inside it to interpolation between its far-off corners).
  let area = 0;
  for (let t = 0; t < nt; t++) {
    const a = idx[t * 3] * 3, b = idx[t * 3 + 1] * 3, c = idx[t * 3 + 2] * 3;
    if (a >= nv * 3 || b >= nv * 3 || c >= nv * 3) return null;
    const ux = pos[b] - pos[a], uy = pos[b + 1] - pos[a + 1], uz = pos[b + 2] - pos[a + 2];
    const vx = pos[c] - pos[a], vy = pos[c + 1] - pos[a + 1], vz = pos[c + 2] - pos[a + 2];
    const cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
    area = Math.max(area, Math.sqrt(cx * cx + cy * cy + cz * cz) / 2);
  }
  const side = Math.sqrt((area * 4) / Math.sqrt(3));
  if (!(side <= rmin * VERTEX_AO_EDGE)) return null;
  if (shared && shared.length === nv * VERTEX_AO) return shared;
  const out = new Float32Array(nv * VERTEX_AO), bounce = new Float64Array(3);
  for (let i = 0; i < nv; i++) {
    const p = i * 3, o = i * VERTEX_AO;
    let nx = nrm[p], ny = nrm[p + 1], nz = nrm[p + 2];
    const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
    // A vertex with no usable position or normal gets NaN: its triangles evaluate per pixel
    // (draw-mesh.ts smoothAo), where shading falls back to the face normal.
    if (!(l > 0 && l < Infinity) || !(Math.abs(pos[p]) + Math.abs(pos[p + 1]) + Math.abs(pos[p + 2]) < Infinity)) {
      out.fill(NaN, o, o + VERTEX_AO);
      continue;
    }
    nx /= l; ny /= l; nz /= l;
    const cell = occludersAt(occ, pos[p], pos[p + 1], pos[p + 2]);
    bounce.fill(0);
    out[o] = cell.length ? ambientVisibility(cell, pos[p], pos[p + 1], pos[p + 2], nx, ny, nz, bounce) : 1;
    out[o + 1] = bounce[0]; out[o + 2] = bounce[1]; out[o + 3] = bounce[2];
  }
  return out;
}

