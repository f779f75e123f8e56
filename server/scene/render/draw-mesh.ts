/**
 * Per-mesh geometry stage: transform vertices once, then for every triangle
 * reject / cull / clip and hand it to the rasterizer.
 *
 * Double-sided meshes are drawn in two passes — front faces first, then back
 * faces — so for closed shapes the back faces fail the depth test and are
 * never shaded (cheap early-z without sorting triangles).
 */
import { Clipper, OC_BAD, OC_CLIP, OC_REJECT, VERT_STRIDE, outcode } from "./clip";
import type { ViewSetup } from "./camera";
import { RasterState, rasterTriangle } from "./raster";
import type { TextureMap } from "./texture";
import { VERTEX_AO } from "./occlusion";
import type { RenderMesh } from "./types";

// Local aliases: imports become getter reads under some transpilers/test runners.
const raster = rasterTriangle;
const outcodeOf = outcode;
const BAD = OC_BAD;
const REJECT = OC_REJECT;
const CLIP = OC_CLIP;
const STRIDE = VERT_STRIDE;
const AO_FLOATS = VERTEX_AO;

/** Scratch buffers reused across meshes within one frame (grown on demand). */
export class GeometryScratch {
  /** Transformed X, Y, W per vertex. */
  clip = new Float64Array(0);
  /** Outcode per vertex. */
  codes = new Uint16Array(0);
  /** Triangle indices of back faces deferred to the second pass. */
  back = new Uint32Array(0);
  /** Polygon clipper (also holds the 3-vertex staging buffer). */
  readonly clipper: Clipper;
  /** The current mesh's per-vertex occlusion (occlusion.ts vertexOcclusion), or null. */
  ao: Float32Array | null = null;

  /** Creates the clipper for this frame's viewport and near plane. */
  constructor(width: number, height: number, near: number) {
    this.clipper = new Clipper(width, height, near);
  }

  /** Makes sure the buffers fit `verts` vertices and `tris` triangles. */
  ensure(verts: number, tris: number): void {
    if (this.codes.length < verts) {
      this.clip = new Float64Array(verts * 3);
      this.codes = new Uint16Array(verts);
    }
    if (this.back.length < tris) this.back = new Uint32Array(tris);
  }
}

/**
 * Draws one mesh into the state's colour/depth buffers, with its prepared texture (texture.ts) or
 * null and its per-vertex occlusion, asked for only once the mesh is known to be in view (a
 * band of a frame sees few of its meshes); ignores malformed parts instead of throwing.
 */
export function drawMesh(mesh: RenderMesh, view: ViewSetup, st: RasterState, sc: GeometryScratch, texture: TextureMap | null = null, vertexAo: (() => Float32Array | null) | null = null): void {
  const pos = mesh.positions;
  const idx = mesh.indices;
  if (!pos || !idx) return;
  const nv = Math.floor(pos.length / 3);
  const nt = Math.floor(idx.length / 3);
  if (nv === 0 || nt === 0) return;
  sc.ensure(nv, nt);
  const nrm = mesh.normals && mesh.normals.length >= nv * 3 ? mesh.normals : null;
  const m = view.m, clip = sc.clip, codes = sc.codes;
  const { width, height } = st;
  let all = 0xffff;
  for (let i = 0, p = 0; i < nv; i++, p += 3) {
    const x = pos[p], y = pos[p + 1], z = pos[p + 2];
    const X = m[0] * x + m[1] * y + m[2] * z + m[3];
    const Y = m[4] * x + m[5] * y + m[6] * z + m[7];
    const W = m[8] * x + m[9] * y + m[10] * z + m[11];
    clip[p] = X; clip[p + 1] = Y; clip[p + 2] = W;
    const c = outcodeOf(X, Y, W, width, height, view.near, view.far);
    codes[i] = c;
    all &= c;
  }
  if ((all & REJECT) !== 0) return; // whole mesh off-screen

  const col = mesh.color;
  const metallic = finite01(mesh.metallic ?? 0);
  const roughness = Number.isFinite(mesh.roughness) ? finite01(mesh.roughness as number) : 0.5;
  if (Array.isArray(col)) st.setMaterial(finite01(col[0]), finite01(col[1]), finite01(col[2]), metallic, roughness);
  else st.setMaterial(1, 1, 1, metallic, roughness);
  st.texture = texture;
  // Per-vertex occlusion was computed for the outward normals: back faces take it per pixel.
  const ao = vertexAo === null ? null : vertexAo();
  st.vertexAo = ao !== null;
  sc.ao = ao;
  const doubleSided = mesh.doubleSided !== false;
  const eye = view.eye;
  let nBack = 0;
  const back = sc.back;
  for (let t = 0; t < nt; t++) {
    const facing = classify(pos, idx, t, nv, codes, eye);
    if (facing === 0) continue;
    if (facing < 0) {
      if (doubleSided) back[nBack++] = t;
      continue;
    }
    drawTriangle(pos, nrm, idx, t, st, sc, 1);
  }
  st.vertexAo = false;
  for (let k = 0; k < nBack; k++) drawTriangle(pos, nrm, idx, back[k], st, sc, -1);
}

function finite01(v: number): number {
  return v > 0 ? (v < 1 ? v : 1) : 0;
}

/** 1 = front-facing, -1 = back-facing, 0 = skip (bad index, NaN, zero area, trivially off-screen). */
function classify(pos: Float32Array, idx: Uint32Array, t: number, nv: number, codes: Uint16Array, eye: number[]): number {
  const i0 = idx[t * 3], i1 = idx[t * 3 + 1], i2 = idx[t * 3 + 2];
  if (i0 >= nv || i1 >= nv || i2 >= nv) return 0;
  const c0 = codes[i0], c1 = codes[i1], c2 = codes[i2];
  if (((c0 | c1 | c2) & BAD) !== 0 || (c0 & c1 & c2 & REJECT) !== 0) return 0;
  const a = i0 * 3, b = i1 * 3, c = i2 * 3;
  const ux = pos[b] - pos[a], uy = pos[b + 1] - pos[a + 1], uz = pos[b + 2] - pos[a + 2];
  const vx = pos[c] - pos[a], vy = pos[c + 1] - pos[a + 1], vz = pos[c + 2] - pos[a + 2];
  const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  // World-space facing test: valid even for triangles that straddle the near plane.
  const s = nx * (eye[0] - pos[a]) + ny * (eye[1] - pos[a + 1]) + nz * (eye[2] - pos[a + 2]);
  return s > 0 ? 1 : s < 0 ? -1 : 0;
}

function drawTriangle(
  pos: Float32Array,
  nrm: Float32Array | null,
  idx: Uint32Array,
  t: number,
  st: RasterState,
  sc: GeometryScratch,
  flip: number,
): void {
  const i0 = idx[t * 3], i1 = idx[t * 3 + 1], i2 = idx[t * 3 + 2];
  const a = i0 * 3, b = i1 * 3, c = i2 * 3;
  const ux = pos[b] - pos[a], uy = pos[b + 1] - pos[a + 1], uz = pos[b + 2] - pos[a + 2];
  const vx = pos[c] - pos[a], vy = pos[c + 1] - pos[a + 1], vz = pos[c + 2] - pos[a + 2];
  let fx = uy * vz - uz * vy, fy = uz * vx - ux * vz, fz = ux * vy - uy * vx;
  const fl = Math.sqrt(fx * fx + fy * fy + fz * fz);
  if (!(fl > 0)) return;
  fx /= fl; fy /= fl; fz /= fl;
  st.setFace(flip, fx * flip, fy * flip, fz * flip);

  const clipper = sc.clipper;
  const v = clipper.a;
  const cc = sc.clip;
  const ids = TRI;
  const tex = st.texture, uv = tex === null ? null : tex.uv;
  const ao = flip > 0 ? sc.ao : null;
  ids[0] = i0; ids[1] = i1; ids[2] = i2;
  for (let k = 0; k < 3; k++) {
    const i = ids[k], o = k * STRIDE, p = i * 3;
    v[o] = cc[p]; v[o + 1] = cc[p + 1]; v[o + 2] = cc[p + 2];
    v[o + 3] = pos[p]; v[o + 4] = pos[p + 1]; v[o + 5] = pos[p + 2];
    if (nrm) {
      v[o + 6] = nrm[p]; v[o + 7] = nrm[p + 1]; v[o + 8] = nrm[p + 2];
    } else {
      v[o + 6] = fx; v[o + 7] = fy; v[o + 8] = fz;
    }
    if (uv !== null) {
      v[o + 9] = uv[i * 2]; v[o + 10] = uv[i * 2 + 1];
    }
    if (ao !== null) {
      const q = i * AO_FLOATS;
      v[o + 11] = ao[q]; v[o + 12] = ao[q + 1]; v[o + 13] = ao[q + 2]; v[o + 14] = ao[q + 3];
    }
  }
  // Occlusion that changes fast across the triangle (where another object touches or cuts into
  // this one) is not linear enough to interpolate: such triangles evaluate it per pixel.
  if (ao !== null) st.vertexAo = smoothAo(ao, i0, i1, i2);
  const mask = (sc.codes[i0] | sc.codes[i1] | sc.codes[i2]) & CLIP;
  if (mask === 0) {
    raster(st, v, 0, STRIDE, 2 * STRIDE);
    return;
  }
  const n = clipper.clip(3, mask);
  const out = clipper.out;
  for (let k = 1; k + 1 < n; k++) raster(st, out, 0, k * STRIDE, (k + 1) * STRIDE);
}

const TRI = new Uint32Array(3);

/** Largest spread of visibility (or of a bounce channel) over a triangle's vertices that is still interpolated: at 0.1 a sphere cutting into another drew up to 7 levels off, at 0.05 at most 1. */
const AO_SPREAD = 0.05;

function smoothAo(ao: Float32Array, i0: number, i1: number, i2: number): boolean {
  const a = i0 * AO_FLOATS, b = i1 * AO_FLOATS, c = i2 * AO_FLOATS;
  for (let k = 0; k < AO_FLOATS; k++) {
    const x = ao[a + k], y = ao[b + k], z = ao[c + k];
    if (!(Math.max(x, y, z) - Math.min(x, y, z) <= AO_SPREAD)) return false; // NaN: not smooth
  }
  return true;
}
