/**
 * Homogeneous polygon clipping (Sutherland-Hodgman) against the near plane
 * and a guard band around the viewport.
 *
 * Near clipping is what keeps triangles that pass behind the eye from being
 * dropped or "wrapped" through infinity. The guard band (GUARD pixels beyond
 * each edge) only exists to bound screen coordinates so the rasterizer's
 * fixed-point edge functions stay exact in doubles; it is rarely hit.
 */

/** Floats per clip vertex: X, Y, W, world px, py, pz, normal nx, ny, nz, texture u, v, ambient visibility, bounce r, g, b. */
export const VERT_STRIDE = 15;
/** Guard band in pixels beyond each viewport edge. */
export const GUARD = 8192;
/** Outcode bit: behind the near plane. */
export const OC_NEAR = 1;
/** Outcode bits for the four viewport edges (used for trivial rejection). */
export const OC_LEFT = 2;
/** Outcode bit: right of the viewport. */
export const OC_RIGHT = 4;
/** Outcode bit: above the viewport. */
export const OC_TOP = 8;
/** Outcode bit: below the viewport. */
export const OC_BOTTOM = 16;
/** Outcode bit: beyond the far plane. */
export const OC_FAR = 32;
/** Outcode bits for the guard band edges (left, right, top, bottom). */
export const OC_GUARD_LEFT = 64;
/** Outcode bit: right of the guard band. */
export const OC_GUARD_RIGHT = 128;
/** Outcode bit: above the guard band. */
export const OC_GUARD_TOP = 256;
/** Outcode bit: below the guard band. */
export const OC_GUARD_BOTTOM = 512;
/** Outcode bit: non-finite vertex (never drawn). */
export const OC_BAD = 1024;
/** Bits a triangle must share across all vertices to be trivially invisible. */
export const OC_REJECT = OC_NEAR | OC_LEFT | OC_RIGHT | OC_TOP | OC_BOTTOM | OC_FAR;
/** Bits that force clipping (near + guard band). */
export const OC_CLIP = OC_NEAR | OC_GUARD_LEFT | OC_GUARD_RIGHT | OC_GUARD_TOP | OC_GUARD_BOTTOM;

/** Computes the outcode of one (X, Y, W) vertex. */
export function outcode(x: number, y: number, w: number, width: number, height: number, near: number, far: number): number {
  if (!(Math.abs(x) < 1e30 && Math.abs(y) < 1e30 && Math.abs(w) < 1e30)) return OC_BAD;
  let c = 0;
  if (w < near) c |= OC_NEAR;
  if (w > far) c |= OC_FAR;
  if (x < 0) c |= OC_LEFT;
  if (x > width * w) c |= OC_RIGHT;
  if (y < 0) c |= OC_TOP;
  if (y > height * w) c |= OC_BOTTOM;
  if (x < -GUARD * w) c |= OC_GUARD_LEFT;
  if (x > (width + GUARD) * w) c |= OC_GUARD_RIGHT;
  if (y < -GUARD * w) c |= OC_GUARD_TOP;
  if (y > (height + GUARD) * w) c |= OC_GUARD_BOTTOM;
  return c;
}

const CLIP_BITS = [OC_NEAR, OC_GUARD_LEFT, OC_GUARD_RIGHT, OC_GUARD_TOP, OC_GUARD_BOTTOM];

/** Max vertices after clipping a triangle by 5 planes is 8; leave headroom. */
const MAX_VERTS = 16;

/** Reusable clipper: load a polygon into `a`, call clip(), read `count` vertices from `out`. */
export class Clipper {
  /** Input buffer (and ping-pong scratch). */
  a = new Float64Array(MAX_VERTS * VERT_STRIDE);
  /** Second ping-pong buffer. */
  b = new Float64Array(MAX_VERTS * VERT_STRIDE);
  /** Buffer holding the result of the last clip(). */
  out: Float64Array = this.a;
  /** Plane coefficients [kx, ky, kw, k0] in OC_CLIP bit order: near, guard L, R, T, B. */
  private readonly planes: Float64Array;

  /** Builds the clip planes for one viewport and near distance. */
  constructor(width: number, height: number, near: number) {
    this.planes = new Float64Array([0, 0, 1, -near, 1, 0, GUARD, 0, -1, 0, width + GUARD, 0, 0, 1, GUARD, 0, 0, -1, height + GUARD, 0]);
  }

  /** Clips the `n`-vertex polygon in `a` against the planes whose bits are in `mask`; returns the vertex count. */
  clip(n: number, mask: number): number {
    let src = this.a;
    let dst = this.b;
    const bits = CLIP_BITS;
    for (let p = 0; p < 5 && n > 0; p++) {
      if ((mask & bits[p]) === 0) continue;
      n = this.clipPlane(src, dst, n, p * 4);
      const t = src;
      src = dst;
      dst = t;
    }
    this.out = src;
    return n;
  }

  private clipPlane(src: Float64Array, dst: Float64Array, n: number, po: number): number {
    const P = this.planes;
    const kx = P[po], ky = P[po + 1], kw = P[po + 2], k0 = P[po + 3];
    let m = 0;
    for (let i = 0; i < n; i++) {
      const ia = i * VERT_STRIDE;
      const ib = ((i + 1) % n) * VERT_STRIDE;
      const da = kx * src[ia] + ky * src[ia + 1] + kw * src[ia + 2] + k0;
      const db = kx * src[ib] + ky * src[ib + 1] + kw * src[ib + 2] + k0;
      if (da >= 0 && m < MAX_VERTS) {
        for (let k = 0; k < VERT_STRIDE; k++) dst[m * VERT_STRIDE + k] = src[ia + k];
        m++;
      }
      if (da >= 0 !== db >= 0 && m < MAX_VERTS) {
        // Always interpolate from the inside vertex to the outside one, so the two
        // triangles sharing this edge compute bit-identical new vertices (no cracks).
        const inA = da >= 0;
        const io = inA ? ia : ib;
        const oo = inA ? ib : ia;
        const t = inA ? da / (da - db) : db / (db - da);
        for (let k = 0; k < VERT_STRIDE; k++) dst[m * VERT_STRIDE + k] = src[io + k] + t * (src[oo + k] - src[io + k]);
        if (po === 0) dst[m * VERT_STRIDE + 2] = Math.max(dst[m * VERT_STRIDE + 2], -k0); // W >= near exactly
        m++;
      }
    }
    return m;
  }
}
