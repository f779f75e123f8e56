/**
 * Shadow maps for directional and spot lights.
 *
 * A directional light gets two orthographic cascades fitted to the part of the scene that can
 * matter: the camera's view frustum (cut at SHADOW_DISTANCE or the scene's far end; the fine
 * cascade at a fifth of that) intersected with the scene's bounding box, seen along the light.
 * Depth is unbounded towards the light, so casters outside the view still cast. A spot light gets one perspective map
 * through its cone. Point lights cast no shadows (that would need six maps each).
 *
 * Lookups use a normal offset plus a constant depth bias, both one texel's world size, which
 * removes acne on surfaces lit at grazing angles without visibly detaching shadows from their
 * casters, and bilinear PCF (4 reads), which turns texel steps into a ramp; the supersampling
 * then averages four such lookups per pixel. A wider kernel (3x3 texels, 16 reads) looked
 * slightly softer but cost 40 % of the frame.
 */
import { LIGHT_DIRECTIONAL, LIGHT_SPOT, LIGHT_STRIDE, type PackedLights } from "./lights";
import type { ViewSetup } from "./camera";
import type { RenderMesh } from "./types";
import { scratch, scratchF32 } from "./scratch";

/** Texels per side of a directional light's map. */
export const DIRECTIONAL_MAP_SIZE = 1536;
/** Texels per side of a directional light's near cascade. */
export const NEAR_CASCADE_SIZE = 1024;
/** Texels per side of a spot light's map. */
export const SPOT_MAP_SIZE = 1024;
/**
 * How far from the camera (metres) directional shadows are drawn (Unity's default is 150 m with
 * four cascades; one map has to be tighter). Beyond it surfaces are lit; the last 10 % fades.
 */
export const SHADOW_DISTANCE = 50;
/** Texels of the largest map (what a buffer shared between threads must hold). */
export const MAX_SHADOW_MAP_TEXELS = Math.max(DIRECTIONAL_MAP_SIZE, NEAR_CASCADE_SIZE, SPOT_MAP_SIZE) ** 2;
/**
 * Triangles above which threads share out whole shadow maps rather than rows of each: a million
 * triangles set up for every map by both threads made a 1280x720 frame 0.12 s slower.
 */
const ROW_SPLIT_MAX_TRIANGLES = 200_000;
/** Widest spot cone (half-angle, degrees) a single perspective map covers; wider cones are clamped. */
const MAX_SPOT_HALF_ANGLE = 80;
const SPOT_NEAR = 0.05;

/** One light's depth map: a world -> (u, v, depth) transform and the nearest depth per texel. */
export class ShadowMap {
  /** World -> texel transform rows [u, v, w] (w = depth along the light, metres); perspective maps divide u, v by w. */
  readonly m: Float64Array;
  /** Nearest occluder depth per texel (metres along the light); Infinity = nothing. */
  readonly depth: Float32Array;
  /**
   * Camera-distance rules: [view dir x, y, z, offset (so dir.p + offset = view depth), depth beyond
   * which `next` (the coarser cascade) is used, fade start, 1 / fade length]; Infinity = never.
   */
  readonly view = new Float64Array([0, 0, 0, 0, Infinity, Infinity, 0]);
  /** The next, coarser cascade (directional lights), or null. */
  next: ShadowMap | null = null;
  /** Where a perspective map's light stands (world); unused by orthographic maps, whose light direction is m's third row. */
  readonly source = new Float64Array(3);

  /** `texel`: world size of one texel (per metre of depth for perspective maps); `depth` is cleared when drawn. */
  constructor(readonly size: number, m: Float64Array, readonly perspective: boolean, readonly texel: number, depth: Float32Array) {
    this.m = m;
    this.depth = depth;
  }
}

/**
 * Shadow maps built by several threads for one frame: all lay out the same maps over the same
 * shared buffers (`buffer`), each draws its `part` of `parts`, and `ready` returns once all have
 * drawn theirs. The part is a run of every map's texel rows, which keeps the threads even (a
 * sun's two cascades differ in size, and a frame may have one map), unless the scene has so many
 * triangles that setting each one up for every map costs more than filling texels: then whole
 * maps are shared out. Without it a thread draws every map into its own reused buffers.
 */
export interface ShadowShare {
  buffer(slot: number, length: number): Float32Array;
  readonly part: number;
  readonly parts: number;
  ready(): void;
}

/** Two buffer slots per light (a directional light's two cascades); a thread's own buffers are reused from frame to frame. */
const OWN_BUFFERS: ShadowShare["buffer"] = (slot, length) => scratchF32(`shadow${slot}`, length);

/** World-space bounds of all finite mesh positions: [minX, minY, minZ, maxX, maxY, maxZ], or null when empty. */
export function sceneBounds(meshes: readonly RenderMesh[]): Float64Array | null {
  const b = new Float64Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
  for (const mesh of meshes) {
    const p = mesh?.positions;
    if (!p) continue;
    for (let i = 0; i + 2 < p.length; i += 3) {
      const x = p[i], y = p[i + 1], z = p[i + 2];
      if (!(Math.abs(x) < 1e30 && Math.abs(y) < 1e30 && Math.abs(z) < 1e30)) continue;
      if (x < b[0]) b[0] = x;
      if (y < b[1]) b[1] = y;
      if (z < b[2]) b[2] = z;
      if (x > b[3]) b[3] = x;
      if (y > b[4]) b[4] = y;
      if (z > b[5]) b[5] = z;
    }
  }
  return b[0] <= b[3] ? b : null;
}

/** Two unit vectors perpendicular to unit `d` and to each other. */
function basis(dx: number, dy: number, dz: number): [number, number, number, number, number, number] {
  // right = normalize(d x ref), ref = world Y (d x Y = (-dz, 0, dx)) unless d is nearly vertical, then X.
  const vertical = Math.abs(dy) > 0.99;
  let rx = vertical ? 0 : -dz, ry = vertical ? dz : 0, rz = vertical ? -dy : dx;
  const rl = Math.hypot(rx, ry, rz) || 1;
  rx /= rl; ry /= rl; rz /= rl;
  return [rx, ry, rz, ry * dz - rz * dy, rz * dx - rx * dz, rx * dy - ry * dx];
}

/** Builds one map per packed light that can cast (null for the others), in packed order. */
export function buildShadowMaps(lights: PackedLights, meshes: readonly RenderMesh[], view: ViewSetup, share?: ShadowShare): (ShadowMap | null)[] {
  const out: (ShadowMap | null)[] = [];
  const bounds = sceneBounds(meshes);
  const alloc = share ? share.buffer : OWN_BUFFERS;
  let triangles = 0;
  for (const mesh of meshes) triangles += (mesh?.indices?.length ?? 0) / 3;
  const byMaps = share !== undefined && triangles > ROW_SPLIT_MAX_TRIANGLES;
  let index = 0;
  for (let li = 0; li < lights.count; li++) {
    const o = li * LIGHT_STRIDE;
    const L = lights.data;
    let map: ShadowMap | null = null;
    if (bounds && L[o] === LIGHT_DIRECTIONAL) map = directionalMap(-L[o + 1], -L[o + 2], -L[o + 3], bounds, view, 2 * li, alloc);
    else if (bounds && L[o] === LIGHT_SPOT) map = spotMap(L[o + 1], L[o + 2], L[o + 3], L[o + 9], L[o + 10], L[o + 11], lights.cone[li * 2], 2 * li, alloc);
    for (let c = map; c; c = c.next) {
      if (byMaps && index++ % share.parts !== share.part) continue;
      const rows = share !== undefined && !byMaps;
      const y0 = rows ? Math.floor((c.size * share.part) / share.parts) : 0;
      const y1 = rows ? Math.floor((c.size * (share.part + 1)) / share.parts) : c.size;
      c.depth.fill(Infinity, y0 * c.size, y1 * c.size);
      for (const mesh of meshes) if (mesh && mesh.castShadows !== false) drawDepth(c, mesh, y0, y1);
    }
    out.push(map);
  }
  share?.ready();
  return out;
}

/** Two cascades: a fine map for the first fifth of the shadowed distance, a coarse one for all of it. */
function directionalMap(dx: number, dy: number, dz: number, b: Float64Array, view: ViewSetup, slot: number, alloc: ShadowShare["buffer"]): ShadowMap | null {
  const { eye, fwd } = view;
  let far = 0;
  for (let k = 0; k < 8; k++) {
    const cx = b[(k & 1) * 3], cy = b[1 + ((k >> 1) & 1) * 3], cz = b[2 + ((k >> 2) & 1) * 3];
    far = Math.max(far, fwd[0] * (cx - eye[0]) + fwd[1] * (cy - eye[1]) + fwd[2] * (cz - eye[2]));
  }
  far = Math.min(far, view.far, SHADOW_DISTANCE);
  if (!(far > view.near)) return null;
  const coarse = fitSlice(dx, dy, dz, b, view, far, DIRECTIONAL_MAP_SIZE, slot, alloc);
  if (!coarse) return null;
  const plane = [fwd[0], fwd[1], fwd[2], -(fwd[0] * eye[0] + fwd[1] * eye[1] + fwd[2] * eye[2])];
  coarse.view.set(plane);
  if (far >= SHADOW_DISTANCE) { coarse.view[5] = far * 0.9; coarse.view[6] = 1 / (far * 0.1); }
  const split = far * 0.2;
  const fine = split > view.near * 4 ? fitSlice(dx, dy, dz, b, view, split, NEAR_CASCADE_SIZE, slot + 1, alloc) : null;
  if (!fine) return coarse;
  fine.view.set(plane);
  // Switch a little before the fine map's far edge so its PCF footprint never runs off the map.
  fine.view[4] = split * 0.95;
  fine.next = coarse;
  return fine;
}

/** An orthographic map along d covering the view frustum from the near plane to `far`, cut to the scene's bounds. */
function fitSlice(dx: number, dy: number, dz: number, b: Float64Array, view: ViewSetup, far: number, size: number, slot: number, alloc: ShadowShare["buffer"]): ShadowMap | null {
  const [rx, ry, rz, ux, uy, uz] = basis(dx, dy, dz);
  const { eye, fwd, right, up, tanX, tanY } = view;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const t of [view.near, far]) {
    for (let k = 0; k < 4; k++) {
      const sx = k & 1 ? tanX * t : -tanX * t, sy = k & 2 ? tanY * t : -tanY * t;
      const px = eye[0] + fwd[0] * t + right[0] * sx + up[0] * sy;
      const py = eye[1] + fwd[1] * t + right[1] * sx + up[1] * sy;
      const pz = eye[2] + fwd[2] * t + right[2] * sx + up[2] * sy;
      const lx = rx * px + ry * py + rz * pz, ly = ux * px + uy * py + uz * pz;
      x0 = Math.min(x0, lx); x1 = Math.max(x1, lx); y0 = Math.min(y0, ly); y1 = Math.max(y1, ly);
    }
  }
  // ...intersected with the scene's own extent across the light.
  let bx0 = Infinity, bx1 = -Infinity, by0 = Infinity, by1 = -Infinity;
  for (let k = 0; k < 8; k++) {
    const cx = b[(k & 1) * 3], cy = b[1 + ((k >> 1) & 1) * 3], cz = b[2 + ((k >> 2) & 1) * 3];
    const lx = rx * cx + ry * cy + rz * cz, ly = ux * cx + uy * cy + uz * cz;
    bx0 = Math.min(bx0, lx); bx1 = Math.max(bx1, lx); by0 = Math.min(by0, ly); by1 = Math.max(by1, ly);
  }
  x0 = Math.max(x0, bx0); x1 = Math.min(x1, bx1); y0 = Math.max(y0, by0); y1 = Math.min(y1, by1);
  if (!(x0 < x1 && y0 < y1)) return null;
  const pad = (Math.max(x1 - x0, y1 - y0) / size) * 3;
  x0 -= pad; x1 += pad; y0 -= pad; y1 += pad;
  const su = size / (x1 - x0), sv = size / (y1 - y0);
  const m = new Float64Array([su * rx, su * ry, su * rz, -su * x0, sv * ux, sv * uy, sv * uz, -sv * y0, dx, dy, dz, 0]);
  return new ShadowMap(size, m, false, Math.max(1 / su, 1 / sv), alloc(slot, size * size));
}

function spotMap(px: number, py: number, pz: number, dx: number, dy: number, dz: number, cosOuter: number, slot: number, alloc: ShadowShare["buffer"]): ShadowMap | null {
  const half = Math.min(MAX_SPOT_HALF_ANGLE, (Math.acos(Math.min(1, Math.max(-1, cosOuter))) * 180) / Math.PI);
  const tanHalf = Math.tan((half * Math.PI) / 180);
  const [rx, ry, rz, ux, uy, uz] = basis(dx, dy, dz);
  const size = SPOT_MAP_SIZE;
  const h = size / 2, s = h / tanHalf;
  // X = s right.(p - P) + h W, Y = s up.(p - P) + h W, W = dir.(p - P).
  const row = (ax: number, ay: number, az: number, k: number): number[] => {
    const cx = s * ax + k * dx, cy = s * ay + k * dy, cz = s * az + k * dz;
    return [cx, cy, cz, -(cx * px + cy * py + cz * pz)];
  };
  const m = new Float64Array([...row(rx, ry, rz, h), ...row(ux, uy, uz, h), ...row(0, 0, 0, 1)]);
  const map = new ShadowMap(size, m, true, (2 * tanHalf) / size, alloc(slot, size * size));
  map.source.set([px, py, pz]);
  return map;
}

// Scratch for one triangle clipped by the spot map's near plane (up to 4 vertices x (u, v, w)).
const POLY = new Float64Array(4 * 3);
const TRI_IN = new Float64Array(3 * 3);
/** Longest vertex array (floats) in the map's space kept from mesh to mesh: a huge mesh's (over 32 MB) is not. */
const VERTICES_KEEP = 4 * 1024 * 1024;

/** Draws the mesh's depth into texel rows y0 .. y1 - 1 of the map. */
function drawDepth(map: ShadowMap, mesh: RenderMesh, y0: number, y1: number): void {
  const pos = mesh.positions, idx = mesh.indices;
  if (!pos || !idx) return;
  const nv = Math.floor(pos.length / 3);
  const m = map.m;
  // The mesh's vertices in the map's space (every entry rewritten below before it is read).
  const tv = scratch("shadow-vertices", Float64Array, nv * 3, VERTICES_KEEP);
  let nearest = Infinity;
  for (let i = 0, p = 0; i < nv; i++, p += 3) {
    const x = pos[p], y = pos[p + 1], z = pos[p + 2];
    tv[p] = m[0] * x + m[1] * y + m[2] * z + m[3];
    tv[p + 1] = m[4] * x + m[5] * y + m[6] * z + m[7];
    const w = (tv[p + 2] = m[8] * x + m[9] * y + m[10] * z + m[11]);
    if (w < nearest) nearest = w;
  }
  // When a spot map's near plane cuts a closed mesh (the light inside the solid, or within
  // SPOT_NEAR of it) the faces turned towards the light may be clipped away: then all faces are
  // drawn, so the solid still blocks the light.
  const S = map.source;
  const closed = mesh.closed === true && !(map.perspective && !(nearest >= SPOT_NEAR));
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const a = idx[t], b = idx[t + 1], c = idx[t + 2];
    if (a >= nv || b >= nv || c >= nv) continue;
    if (closed) {
      // A closed mesh's faces turned away from the light are never the nearest (types.ts, `closed`).
      const pa = a * 3, pb = b * 3, pc = c * 3;
      const ux = pos[pb] - pos[pa], uy = pos[pb + 1] - pos[pa + 1], uz = pos[pb + 2] - pos[pa + 2];
      const vx = pos[pc] - pos[pa], vy = pos[pc + 1] - pos[pa + 1], vz = pos[pc + 2] - pos[pa + 2];
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      const toward = map.perspective
        ? nx * (S[0] - pos[pa]) + ny * (S[1] - pos[pa + 1]) + nz * (S[2] - pos[pa + 2])
        : -(nx * m[8] + ny * m[9] + nz * m[10]);
      if (!(toward > 0)) continue;
    }
    if (!map.perspective) {
      depthTriangle(map, y0, y1, tv, a * 3, b * 3, c * 3);
      continue;
    }
    const wa = tv[a * 3 + 2], wb = tv[b * 3 + 2], wc = tv[c * 3 + 2];
    if (wa < SPOT_NEAR && wb < SPOT_NEAR && wc < SPOT_NEAR) continue;
    for (let k = 0; k < 3; k++) {
      const v = k === 0 ? a : k === 1 ? b : c;
      TRI_IN[k * 3] = tv[v * 3]; TRI_IN[k * 3 + 1] = tv[v * 3 + 1]; TRI_IN[k * 3 + 2] = tv[v * 3 + 2];
    }
    const n = clipNear(TRI_IN, POLY);
    // Perspective divide; depth stays W (metres), interpolated as 1/W inside depthTriangle.
    for (let k = 0; k < n; k++) { POLY[k * 3] /= POLY[k * 3 + 2]; POLY[k * 3 + 1] /= POLY[k * 3 + 2]; }
    for (let k = 1; k + 1 < n; k++) {
      depthTriangle(map, y0, y1, POLY, 0, k * 3, k * 3 + 3);
    }
  }
}

/** Clips a homogeneous triangle (X, Y, W) to W >= SPOT_NEAR; returns the vertex count (0, 3 or 4). */
function clipNear(src: Float64Array, dst: Float64Array): number {
  let n = 0;
  for (let i = 0; i < 3; i++) {
    const j = (i + 1) % 3;
    const da = src[i * 3 + 2] - SPOT_NEAR, db = src[j * 3 + 2] - SPOT_NEAR;
    if (da >= 0) { dst[n * 3] = src[i * 3]; dst[n * 3 + 1] = src[i * 3 + 1]; dst[n * 3 + 2] = src[i * 3 + 2]; n++; }
    if (da >= 0 !== db >= 0) {
      const t = da / (da - db);
      for (let k = 0; k < 3; k++) dst[n * 3 + k] = src[i * 3 + k] + t * (src[j * 3 + k] - src[i * 3 + k]);
      n++;
    }
  }
  return n;
}

/**
 * Depth-only rasterization at texel centres of rows y0 .. y1 - 1 of the triangle whose (x, y, depth)
 * vertices start at offsets a, b, c of `v` (offsets, not the nine values: V8 would box each double
 * argument); perspective maps interpolate 1/W (exact), orthographic ones W.
 */
function depthTriangle(map: ShadowMap, y0: number, y1: number, v: Float64Array, a: number, b: number, c: number): void {
  const xa = v[a], ya = v[a + 1], za = v[a + 2], xb = v[b], yb = v[b + 1], zb = v[b + 2], xc = v[c], yc = v[c + 1], zc = v[c + 2];
  const size = map.size;
  const minX = Math.max(0, Math.ceil(Math.min(xa, xb, xc) - 0.5));
  const maxX = Math.min(size - 1, Math.floor(Math.max(xa, xb, xc) - 0.5));
  const minY = Math.max(y0, Math.ceil(Math.min(ya, yb, yc) - 0.5));
  const maxY = Math.min(y1 - 1, Math.floor(Math.max(ya, yb, yc) - 0.5));
  if (!(minX <= maxX && minY <= maxY)) return;
  const area = (xb - xa) * (yc - ya) - (yb - ya) * (xc - xa);
  if (!(Math.abs(area) > 1e-12)) return;
  const persp = map.perspective;
  const da = persp ? 1 / za : za, db = persp ? 1 / zb : zb, dc = persp ? 1 / zc : zc;
  const inv = 1 / area;
  const depth = map.depth;
  // Normalised barycentrics as affine functions of the texel centre, stepped incrementally along x.
  const ax0 = -(yc - yb) * inv, ax1 = -(ya - yc) * inv; // d w0 / dx, d w1 / dx
  const ax2 = -(ax0 + ax1);
  for (let y = minY; y <= maxY; y++) {
    const py = y + 0.5, px = minX + 0.5;
    let w0 = ((xb - px) * (yc - py) - (yb - py) * (xc - px)) * inv;
    let w1 = ((xc - px) * (ya - py) - (yc - py) * (xa - px)) * inv;
    // Narrow the row to the triangle's span (a texel of slack each side; the test below decides):
    // the long thin triangles of a sphere's or cylinder's sides would otherwise walk their whole box.
    let from = minX, to = maxX;
    const w2 = 1 - w0 - w1;
    if (ax0 > 0) from = Math.max(from, minX + Math.floor((-w0) / ax0) - 1);
    else if (ax0 < 0) to = Math.min(to, minX + Math.ceil((-w0) / ax0) + 1);
    if (ax1 > 0) from = Math.max(from, minX + Math.floor((-w1) / ax1) - 1);
    else if (ax1 < 0) to = Math.min(to, minX + Math.ceil((-w1) / ax1) + 1);
    if (ax2 > 0) from = Math.max(from, minX + Math.floor((-w2) / ax2) - 1);
    else if (ax2 < 0) to = Math.min(to, minX + Math.ceil((-w2) / ax2) + 1);
    if (!(from <= to)) continue;
    w0 += ax0 * (from - minX);
    w1 += ax1 * (from - minX);
    let i = y * size + from;
    for (let x = from; x <= to; x++, i++, w0 += ax0, w1 += ax1) {
      // Inclusive edges (with a hair of slack): a texel covered twice by neighbours is harmless for depth.
      const w2 = 1 - w0 - w1;
      if (w0 < -1e-9 || w1 < -1e-9 || w2 < -1e-9) continue;
      let d = w0 * da + w1 * db + w2 * dc;
      if (persp) d = 1 / d;
      if (d < depth[i]) depth[i] = d;
    }
  }
}

/**
 * Fraction of light reaching world point p with unit normal n (1 = lit, 0 = fully shadowed).
 * Points outside the map are lit.
 */
export function shadowFactor(first: ShadowMap, at: Float64Array): number {
  const px = at[0], py = at[1], pz = at[2], nx = at[3], ny = at[4], nz = at[5];
  let map = first;
  let keep = 1; // how much of the shadow survives the distance fade
  const V = first.view;
  if (V[4] !== Infinity || V[5] !== Infinity) {
    const d = V[0] * px + V[1] * py + V[2] * pz + V[3];
    while (map.next !== null && d > map.view[4]) map = map.next;
    const t = (d - map.view[5]) * map.view[6];
    if (t >= 1) return 1;
    if (t > 0) keep = 1 - t;
  }
  const m = map.m, size = map.size;
  let texel = map.texel;
  if (map.perspective) texel *= m[8] * px + m[9] * py + m[10] * pz + m[11];
  // Normal offset: sample the map from slightly in front of the surface.
  const off = texel * 1.5;
  const x = px + nx * off, y = py + ny * off, z = pz + nz * off;
  let u = m[0] * x + m[1] * y + m[2] * z + m[3];
  let v = m[4] * x + m[5] * y + m[6] * z + m[7];
  const w = m[8] * x + m[9] * y + m[10] * z + m[11];
  if (map.perspective) {
    if (!(w > SPOT_NEAR)) return 1;
    u /= w; v /= w;
  }
  if (!(u > -2 && v > -2 && u < size + 2 && v < size + 2)) return 1;
  const ref = w - texel; // constant bias: one texel's world size
  // Bilinear PCF: the four texels around the sample, weighted by distance (a one-texel ramp;
  // supersampling averages several of these per pixel, which widens it further).
  const u0 = u - 0.5, v0 = v - 0.5;
  const iu = Math.floor(u0), iv = Math.floor(v0);
  const fu = u0 - iu, fv = v0 - iv;
  const depth = map.depth;
  const inU0 = iu >= 0 && iu < size, inU1 = iu + 1 >= 0 && iu + 1 < size;
  let top = 0, bottom = 0;
  if (iv >= 0 && iv < size) {
    const row = iv * size;
    top = (!inU0 || depth[row + iu] >= ref ? 1 - fu : 0) + (!inU1 || depth[row + iu + 1] >= ref ? fu : 0);
  } else top = 1;
  if (iv + 1 >= 0 && iv + 1 < size) {
    const row = (iv + 1) * size;
    bottom = (!inU0 || depth[row + iu] >= ref ? 1 - fu : 0) + (!inU1 || depth[row + iu + 1] >= ref ? fu : 0);
  } else bottom = 1;
  return 1 - keep * (1 - (top * (1 - fv) + bottom * fv));
}
