/**
 * Triangle rasterizer: feeds every covered sample that passes the depth test to shade.ts.
 *
 * Bounding box + edge functions in 8-bit sub-pixel fixed point held in doubles:
 * every edge value is an exact multiple of 0.5 (< 2^52 thanks to the guard
 * band), so incremental stepping never drifts and the top-left rule is exact —
 * adjacent triangles neither crack nor double-cover. Each row is narrowed to
 * the triangle's span before the per-sample test. Depth is 1/W (linear in screen
 * space, larger = nearer), stored in a Float32Array. Shading is done only for
 * samples that pass the depth test, with perspective-correct normals/positions.
 * "Pixel" below means one sample of the supersampled grid.
 */
import type { PackedLights } from "./lights";
import { shadeSample } from "./shade";
import type { ShadowMap } from "./shadow";
import { occlusionAt, type Occluders } from "./occlusion";
import { textureBase, type TextureMap } from "./texture";

// Imported bindings are copied into module-local consts: test runners and CJS
// transpilers turn imports into getter-property reads, far too slow per pixel.
const shade = shadeSample;
const texel = textureBase;
const aoAt = occlusionAt;
/** The samples of the pixel being drawn that passed the depth test (at most 4 x 4). */
const hits = new Int32Array(16);
const SUB = 256; // sub-pixel steps per pixel
// Pixel centres sit at +0.5 px; the extra half sub-step (1/512 px, invisible) makes every
// sample-minus-vertex difference a half-integer: products stay exact in doubles but are never
// small integers, so V8 never speculates on Smi maths and then deoptimises on -0 / overflow.
const HALF = SUB / 2 + 0.5;

/** Mutable per-frame / per-mesh / per-triangle state shared with rasterTriangle and shadeSample (one object, no closures). */
export class RasterState {
  /** Per-sample 1/W of the nearest surface so far (initialised to 1/far). */
  depth: Float32Array;
  /** Per-sample display-linear RGB (tone-mapped, 0..1), 3 floats per sample. */
  color: Float32Array;
  /**
   * Per-mesh/per-triangle shading inputs: [r, g, b, metallic, alpha, flip, fnx, fny, fnz, f0 rgb,
   * diffuse rgb, roughness, base factor rgb]. A typed array, not object fields, so Smi -> double
   * field transitions can't deoptimise the rasterizer. A textured mesh rewrites f0 and diffuse per
   * sample from the base factor (texture.ts).
   */
  readonly params = new Float64Array([1, 1, 1, 0, 0.25, 1, 0, 1, 0, 0.04, 0.04, 0.04, 1, 1, 1, 0.5, 1, 1, 1]);
  /** The current mesh's base colour texture, or null (flat colour: no per-sample texture work). */
  texture: TextureMap | null = null;
  /** Spheres that dim the current mesh's ambient light (occlusion.ts), packed. */
  occluders: Occluders | null = null;
  /**
   * Whether the triangles being drawn carry their ambient occlusion per vertex (clip vertex slots
   * 11..14, occlusion.ts vertexOcclusion): then the rasterizer interpolates it into `ao`
   * ([visibility, bounce rgb]) and shading uses that instead of the occluders.
   */
  vertexAo = false;
  /**
   * The surface point being shaded: [px, py, pz, nx, ny, nz, u, v] (world position, unit normal,
   * texture coordinates when the mesh has a texture). Handed
   * over in this array, not as arguments: V8 passes doubles to a function it has not inlined as
   * heap-allocated numbers, and shading, its shadow lookups and its occlusion are calls per pixel.
   */
  readonly at = new Float64Array(8);
  /** The shaded pixel's occlusion, [visibility, bounce rgb], when the mesh has occluders. */
  readonly ao = new Float64Array(4);
  /**
   * Occlusion worked out per block of 2x2 pixels of one triangle: per block column, the block row
   * and triangle it was worked out for (`tri`, a serial per rasterTriangle call) and its value.
   * It changes over distances of about an occluder's radius, far more than a pixel, so the other
   * pixels of a block take the first one's: most pixels stay within a level of evaluating it per
   * pixel, a few at contacts (an object resting on another) move up to ~20 levels, which does not
   * show at 8x zoom. Evaluating it per pixel was the largest part of a frame of close-packed objects.
   */
  readonly aoRow: Int32Array;
  readonly aoTri: Int32Array;
  readonly aoBlock: Float64Array;
  tri = 0;
  /** The frame row of this buffer's first pixel row (a band's top), so blocks pair the same rows in every band. */
  top = 0;
  /** Per-frame: [eye x, y, z, exposure, ambient]. */
  readonly scene = new Float64Array([0, 0, 0, 1, 1]);

  /** Allocates nothing beyond references; buffers are owned by the caller. */
  constructor(
    readonly width: number,
    readonly height: number,
    /** Samples per output pixel along each axis; width and height are multiples of it. */
    readonly ss: number,
    depth: Float32Array,
    color: Float32Array,
    readonly lights: PackedLights,
    /** Packed sky (sky.ts packSky). */
    readonly sky: Float64Array,
    /** Shadow map per packed light, or null. */
    readonly shadows: (ShadowMap | null)[],
  ) {
    this.depth = depth;
    this.color = color;
    const columns = Math.ceil(width / ss / 2) + 1;
    this.aoRow = new Int32Array(columns);
    this.aoTri = new Int32Array(columns);
    this.aoBlock = new Float64Array(columns * 4);
  }

  /** Sets the material: linear base colour (clamped to 0..1), metallic and roughness (0..1). */
  setMaterial(r: number, g: number, b: number, metallic: number, roughness: number): void {
    const P = this.params;
    P[0] = r; P[1] = g; P[2] = b; P[3] = metallic;
    // GGX alpha = roughness^2, floored so a sun's highlight stays larger than a sample.
    P[4] = Math.max(0.01, roughness * roughness);
    P[15] = roughness;
    P[9] = 0.04 + (r - 0.04) * metallic; P[10] = 0.04 + (g - 0.04) * metallic; P[11] = 0.04 + (b - 0.04) * metallic;
    P[12] = r * (1 - metallic); P[13] = g * (1 - metallic); P[14] = b * (1 - metallic);
    P[16] = r; P[17] = g; P[18] = b;
  }

  /** Sets the eye position, exposure and hemisphere strength for the frame. */
  setScene(ex: number, ey: number, ez: number, exposure: number, ambient: number): void {
    const S = this.scene;
    S[0] = ex; S[1] = ey; S[2] = ez; S[3] = exposure; S[4] = ambient;
  }

  /** Sets the normal flip (+1 / -1) and the unit fallback face normal (already flipped). */
  setFace(flip: number, fx: number, fy: number, fz: number): void {
    this.params[5] = flip;
    this.params[6] = fx;
    this.params[7] = fy;
    this.params[8] = fz;
  }
}

/**
 * Rasterizes and shades the triangle whose clip vertices start at offsets
 * a, b, c of `v` (layout: X, Y, W, px, py, pz, nx, ny, nz, u, v, ao visibility, ao bounce rgb;
 * W >= near > 0; u, v are read only when the mesh has a texture, the occlusion only with st.vertexAo).
 */
export function rasterTriangle(st: RasterState, v: Float64Array, a: number, b: number, c: number): void {
  const width = st.width;
  const height = st.height;
  const iwA = 1 / v[a + 2];
  let iwB = 1 / v[b + 2];
  let iwC = 1 / v[c + 2];
  // "+ 0" turns Math.round's -0 into +0 (a -0 would deoptimise integer maths below).
  const xA = Math.round(v[a] * iwA * SUB) + 0, yA = Math.round(v[a + 1] * iwA * SUB) + 0;
  let xB = Math.round(v[b] * iwB * SUB) + 0, yB = Math.round(v[b + 1] * iwB * SUB) + 0;
  let xC = Math.round(v[c] * iwC * SUB) + 0, yC = Math.round(v[c + 1] * iwC * SUB) + 0;
  // Sample bounding box (sample x covers sub-sample centre x*SUB + HALF); NaN coordinates make it empty.
  const minX = Math.max(0, Math.ceil((Math.min(xA, xB, xC) - HALF) / SUB));
  const maxX = Math.min(width - 1, Math.floor((Math.max(xA, xB, xC) - HALF) / SUB));
  const minY = Math.max(0, Math.ceil((Math.min(yA, yB, yC) - HALF) / SUB));
  const maxY = Math.min(height - 1, Math.floor((Math.max(yA, yB, yC) - HALF) / SUB));
  if (!(minX <= maxX && minY <= maxY)) return;
  // The same box in output pixels (ss x ss samples each); the loops below walk pixels.
  const ss = st.ss;
  const pminX = Math.floor(minX / ss), pmaxX = Math.floor(maxX / ss);
  const pminY = Math.floor(minY / ss), pmaxY = Math.floor(maxY / ss);

  // Edge functions at the first sample of pixel (pminX, pminY): r0 (weight of A) from edge B->C,
  // r1 from C->A, r2 from A->B; A_i / B_i are their x / y gradients. Their sum is twice the signed
  // area; a negative winding is fixed by swapping B and C and redoing the setup.
  const sx00 = pminX * ss * SUB + HALF;
  const sy00 = pminY * ss * SUB + HALF;
  let A0 = 0, B0 = 0, A1 = 0, B1 = 0, A2 = 0, B2 = 0, r0 = 0, r1 = 0, r2 = 0, area = 0;
  for (let pass = 0; ; pass++) {
    A0 = yB - yC; B0 = xC - xB;
    A1 = yC - yA; B1 = xA - xC;
    A2 = yA - yB; B2 = xB - xA;
    r0 = A0 * (sx00 - xB) + B0 * (sy00 - yB);
    r1 = A1 * (sx00 - xC) + B1 * (sy00 - yC);
    r2 = A2 * (sx00 - xA) + B2 * (sy00 - yA);
    area = r0 + r1 + r2;
    if (area > 0) break;
    if (!(area < 0) || pass > 0) return; // zero area or NaN
    let t = xB; xB = xC; xC = t;
    t = yB; yB = yC; yC = t;
    t = iwB; iwB = iwC; iwC = t;
    t = b; b = c; c = t;
  }
  // Top-left rule (y down, positive winding): top edge = horizontal going right, left edge = going up.
  // Edge values are multiples of 0.5, so ">= 0.5" means "> 0" for the other edges.
  const t0 = B0 > 0 && A0 === 0 ? 0 : A0 > 0 ? 0 : 0.5; // edge dy = -A, dx = B
  const t1 = B1 > 0 && A1 === 0 ? 0 : A1 > 0 ? 0 : 0.5;
  const t2 = B2 > 0 && A2 === 0 ? 0 : A2 > 0 ? 0 : 0.5;
  // Steps per sample (s*) and per pixel (p*).
  const sx0 = A0 * SUB, sx1 = A1 * SUB, sx2 = A2 * SUB;
  const sy0 = B0 * SUB, sy1 = B1 * SUB, sy2 = B2 * SUB;
  const px0s = sx0 * ss, px1s = sx1 * ss, px2s = sx2 * ss;
  const py0s = sy0 * ss, py1s = sy1 * ss, py2s = sy2 * ss;
  // Reciprocal pixel x-steps for narrowing each pixel row to the triangle's span (unused when 0).
  const k0 = px0s !== 0 ? 1 / px0s : 0, k1 = px1s !== 0 ? 1 / px1s : 0, k2 = px2s !== 0 ? 1 / px2s : 0;
  // Within a pixel row an edge's bound is loosest at its first or last sample row (and column).
  const last = ss - 1;
  const e0lo = Math.min(0, sy0 * last) + Math.min(0, sx0 * last), e0hi = Math.max(0, sy0 * last) + Math.max(0, sx0 * last);
  const e1lo = Math.min(0, sy1 * last) + Math.min(0, sx1 * last), e1hi = Math.max(0, sy1 * last) + Math.max(0, sx1 * last);
  const e2lo = Math.min(0, sy2 * last) + Math.min(0, sx2 * last), e2hi = Math.max(0, sy2 * last) + Math.max(0, sx2 * last);

  // Barycentric (w_i / area) times 1/W_i, so sum = interpolated 1/W.
  const invArea = 1 / area;
  const q0 = iwA * invArea, q1 = iwB * invArea, q2 = iwC * invArea;
  // Steps of the interpolated 1/W per sample along x and y.
  const dzx = sx0 * q0 + sx1 * q1 + sx2 * q2, dzy = sy0 * q0 + sy1 * q1 + sy2 * q2;
  // Vertex attributes; perspective-correct weights are applied where the pixel is shaded.
  const P = st.params;
  const flip = P[5];
  const nAx = v[a + 6] * flip, nAy = v[a + 7] * flip, nAz = v[a + 8] * flip;
  const nBx = v[b + 6] * flip, nBy = v[b + 7] * flip, nBz = v[b + 8] * flip;
  const nCx = v[c + 6] * flip, nCy = v[c + 7] * flip, nCz = v[c + 8] * flip;
  const pAx = v[a + 3], pAy = v[a + 4], pAz = v[a + 5];
  const pBx = v[b + 3], pBy = v[b + 4], pBz = v[b + 5];
  const pCx = v[c + 3], pCy = v[c + 4], pCz = v[c + 5];
  const fnx = P[6], fny = P[7], fnz = P[8];
  const depth = st.depth, color = st.color;
  const tex = st.texture;
  let uA = 0, vA = 0, uB = 0, vB = 0, uC = 0, vC = 0;
  if (tex !== null) {
    uA = v[a + 9]; vA = v[a + 10]; uB = v[b + 9]; vB = v[b + 10]; uC = v[c + 9]; vC = v[c + 10];
  }
  const vao = st.vertexAo, AO = st.ao, grid = st.occluders, AT = st.at;
  const tri = (st.tri = (st.tri + 1) | 0), aoRow = st.aoRow, aoTri = st.aoTri, aoBlock = st.aoBlock, top = st.top;

  for (let y = pminY; y <= pmaxY; y++, r0 += py0s, r1 += py1s, r2 += py2s) {
    // Narrow the pixel row to where all three edges can be inside some sample (conservative by one
    // pixel each side; the exact per-sample test below decides; horizontal edges need no narrowing).
    let xs = pminX, xe = pmaxX;
    if (A0 > 0) xs = Math.max(xs, pminX + Math.ceil((t0 - r0 - e0hi) * k0) - 1);
    else if (A0 < 0) xe = Math.min(xe, pminX + Math.floor((t0 - r0 - e0hi) * k0) + 1);
    if (A1 > 0) xs = Math.max(xs, pminX + Math.ceil((t1 - r1 - e1hi) * k1) - 1);
    else if (A1 < 0) xe = Math.min(xe, pminX + Math.floor((t1 - r1 - e1hi) * k1) + 1);
    if (A2 > 0) xs = Math.max(xs, pminX + Math.ceil((t2 - r2 - e2hi) * k2) - 1);
    else if (A2 < 0) xe = Math.min(xe, pminX + Math.floor((t2 - r2 - e2hi) * k2) + 1);
    if (xs > xe) continue;
    const dx = xs - pminX;
    let w0 = r0 + px0s * dx, w1 = r1 + px1s * dx, w2 = r2 + px2s * dx;
    const rowBase = y * ss * width;
    for (let x = xs; x <= xe; x++, w0 += px0s, w1 += px1s, w2 += px2s) {
      // Whole pixel outside one edge: skip without touching its samples.
      if (w0 + e0hi < t0 || w1 + e1hi < t1 || w2 + e2hi < t2) continue;
      // Multisampling: coverage and depth per sample, shading once per pixel and triangle, at the
      // first sample that passes (inside the triangle, so attributes never extrapolate); the
      // other passing samples (hits[1..n)) copy its colour.
      const full = w0 + e0lo >= t0 && w1 + e1lo >= t1 && w2 + e2lo >= t2;
      // 1/W is affine in screen space: stepped per sample from the pixel's first, and the
      // barycentrics worked out only for the one sample that is shaded (edge values s0..s2).
      const iwPixel = w0 * q0 + w1 * q1 + w2 * q2;
      let n = 0, s0 = 0, s1 = 0, s2 = 0;
      if (full && ss === 2) {
        // The default 2x2 with every sample inside, unrolled: most pixels of a frame. The same
        // sums in the same order as the loop below, so both give the same bits.
        const i0 = rowBase + 2 * x, i1 = i0 + width;
        let z = iwPixel;
        if (z > depth[i0]) { depth[i0] = z; hits[n++] = i0; s0 = w0; s1 = w1; s2 = w2; }
        z += dzx;
        if (z > depth[i0 + 1]) {
          depth[i0 + 1] = z;
          if (n === 0) { s0 = w0 + sx0; s1 = w1 + sx1; s2 = w2 + sx2; }
          hits[n++] = i0 + 1;
        }
        z = iwPixel + dzy;
        if (z > depth[i1]) {
          depth[i1] = z;
          if (n === 0) { s0 = w0 + sy0; s1 = w1 + sy1; s2 = w2 + sy2; }
          hits[n++] = i1;
        }
        z += dzx;
        if (z > depth[i1 + 1]) {
          depth[i1 + 1] = z;
          if (n === 0) { s0 = w0 + sy0 + sx0; s1 = w1 + sy1 + sx1; s2 = w2 + sy2 + sx2; }
          hits[n++] = i1 + 1;
        }
      } else {
        for (let j = 0; j < ss; j++) {
          let idx = rowBase + j * width + x * ss;
          let u0 = w0 + sy0 * j, u1 = w1 + sy1 * j, u2 = w2 + sy2 * j;
          let iw = iwPixel + dzy * j;
          for (let i = 0; i < ss; i++, idx++, u0 += sx0, u1 += sx1, u2 += sx2, iw += dzx) {
            if (!full && (u0 < t0 || u1 < t1 || u2 < t2)) continue;
            if (!(iw > depth[idx])) continue;
            depth[idx] = iw;
            if (n === 0) { s0 = u0; s1 = u1; s2 = u2; }
            hits[n++] = idx;
          }
        }
      }
      if (n === 0) continue;
      const idx = hits[0];
      // Perspective-correct barycentrics.
      const e0 = s0 * q0, e1 = s1 * q1, e2 = s2 * q2;
      const k = 1 / (e0 + e1 + e2);
      const b0 = e0 * k, b1 = e1 * k, b2 = e2 * k;
      let nx = b0 * nAx + b1 * nBx + b2 * nCx;
      let ny = b0 * nAy + b1 * nBy + b2 * nCy;
      let nz = b0 * nAz + b1 * nBz + b2 * nCz;
      const n2 = nx * nx + ny * ny + nz * nz;
      if (n2 > 1e-24) {
        const inv = 1 / Math.sqrt(n2);
        nx *= inv; ny *= inv; nz *= inv;
      } else {
        nx = fnx; ny = fny; nz = fnz;
      }
      const px = b0 * pAx + b1 * pBx + b2 * pCx;
      const py3 = b0 * pAy + b1 * pBy + b2 * pCy;
      const pz = b0 * pAz + b1 * pBz + b2 * pCz;
      AT[0] = px; AT[1] = py3; AT[2] = pz; AT[3] = nx; AT[4] = ny; AT[5] = nz;
      if (tex !== null) {
        AT[6] = b0 * uA + b1 * uB + b2 * uC; AT[7] = b0 * vA + b1 * vB + b2 * vC;
        texel(st, tex);
      }
      if (vao) {
        AO[0] = b0 * v[a + 11] + b1 * v[b + 11] + b2 * v[c + 11];
        AO[1] = b0 * v[a + 12] + b1 * v[b + 12] + b2 * v[c + 12];
        AO[2] = b0 * v[a + 13] + b1 * v[b + 13] + b2 * v[c + 13];
        AO[3] = b0 * v[a + 14] + b1 * v[b + 14] + b2 * v[c + 14];
      } else if (grid !== null) {
        const bx = x >> 1, by = (y + top) >> 1, o = bx * 4;
        if (aoTri[bx] === tri && aoRow[bx] === by) {
          AO[0] = aoBlock[o]; AO[1] = aoBlock[o + 1]; AO[2] = aoBlock[o + 2]; AO[3] = aoBlock[o + 3];
        } else {
          aoAt(grid, AT, AO);
          aoBlock[o] = AO[0]; aoBlock[o + 1] = AO[1]; aoBlock[o + 2] = AO[2]; aoBlock[o + 3] = AO[3];
          aoTri[bx] = tri; aoRow[bx] = by;
        }
      }
      shade(st, idx);
      for (let h = 1; h < n; h++) {
        const o = hits[h] * 3, so = idx * 3;
        color[o] = color[so]; color[o + 1] = color[so + 1]; color[o + 2] = color[so + 2];
      }
    }
  }
}
