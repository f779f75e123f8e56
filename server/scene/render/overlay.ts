/**
 * Overlays for people and AI clients reading a screenshot: a ground grid and axis arrows
 * (3D lines drawn into the supersampled buffer, so they are anti-aliased like the scene)
 * and text labels (drawn into the final image, always on top and always legible).
 *
 * Grid lines are hidden where geometry is in front of them; they may be up to 0.2 % farther
 * than the surface they lie on, which lets a line on a ground plane at y = 0 show without
 * z-fighting. Axes are drawn fully where visible and faintly where hidden, so they can be
 * found inside objects at the origin.
 */
import type { ViewSetup } from "./camera";
import { GLYPH_H, GLYPH_W, glyphInk } from "./font";
import type { RasterState } from "./raster";
import { scratch } from "./scratch";
import type { RenderOutput, RenderOverlay, Vec3 } from "./types";

/** Grid spacing (m), extent of the fine grid and of the coarse (every 10 m) grid. */
const GRID_STEP = 1, GRID_FINE = 20, GRID_COARSE = 100;
const GRID_COLOR: Vec3 = [0.92, 0.92, 0.92];
const DEPTH_SLACK = 0.998;
/** Samples of a 1920x1080 frame at 2x2: the largest stamp buffer kept between frames. */
const STAMP_KEEP = 3840 * 2160;

interface Stroke { color: Vec3; alpha: number; hiddenAlpha: number; width: number }

/** Draws the grid and axes of `overlay` into the state's samples (ss samples per output pixel). */
export function drawLines3d(st: RasterState, view: ViewSetup, overlay: RenderOverlay, ss: number): void {
  // Reused from frame to frame and cleared (a fresh one page-faulted ~15 MB per 720p frame); one
  // for a band of more than 1080p's samples is its own, so overlays keep at most ~33 MB more.
  const stamp = scratch("stamp", Uint32Array, st.width * st.height, STAMP_KEEP).fill(0);
  let id = 0;
  if (overlay.grid) {
    const fine: Stroke = { color: GRID_COLOR, alpha: 0.22, hiddenAlpha: 0, width: ss };
    const coarse: Stroke = { color: GRID_COLOR, alpha: 0.45, hiddenAlpha: 0, width: ss };
    for (let k = -GRID_FINE; k <= GRID_FINE; k += GRID_STEP) {
      if (k % 10 === 0) continue;
      segment(st, view, [k, 0, -GRID_FINE], [k, 0, GRID_FINE], fine, stamp, ++id);
      segment(st, view, [-GRID_FINE, 0, k], [GRID_FINE, 0, k], fine, stamp, ++id);
    }
    for (let k = -GRID_COARSE; k <= GRID_COARSE; k += 10) {
      segment(st, view, [k, 0, -GRID_COARSE], [k, 0, GRID_COARSE], coarse, stamp, ++id);
      segment(st, view, [-GRID_COARSE, 0, k], [GRID_COARSE, 0, k], coarse, stamp, ++id);
    }
  }
  const len = axisLength(view);
  for (const axis of overlay.axes ?? []) {
    const d = axis.direction;
    const tip: Vec3 = [d[0] * len, d[1] * len, d[2] * len];
    segment(st, view, [0, 0, 0], tip, { color: axis.color, alpha: 1, hiddenAlpha: 0.35, width: 2 * ss }, stamp, ++id);
  }
}

/** Axis arrows are 15 % of the eye's distance to the origin (at least 1 m), so they read at any zoom. */
export function axisLength(view: ViewSetup): number {
  return Math.max(1, 0.15 * Math.hypot(view.eye[0], view.eye[1], view.eye[2]));
}

/** Draws one 3D segment: clipped to the near plane, stepped every half sample, stamped once per sample. */
function segment(st: RasterState, view: ViewSetup, a: Vec3, b: Vec3, s: Stroke, stamp: Uint32Array, id: number): void {
  const m = view.m;
  const project = (p: Vec3) => [m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3], m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7], m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11]];
  let A = project(a), B = project(b);
  const near = view.near;
  if (A[2] < near && B[2] < near) return;
  if (A[2] < near || B[2] < near) {
    const t = (near - A[2]) / (B[2] - A[2]);
    const C = [A[0] + (B[0] - A[0]) * t, A[1] + (B[1] - A[1]) * t, near];
    if (A[2] < near) A = C; else B = C;
  }
  const ax = A[0] / A[2], ay = A[1] / A[2], bx = B[0] / B[2], by = B[1] / B[2];
  const { width, height, depth, color } = st;
  const steps = Math.min(1 << 16, Math.ceil(Math.max(Math.abs(bx - ax), Math.abs(by - ay)) * 2) + 1);
  const half = s.width / 2;
  // Only the steps whose stroke can touch the image: a grid line 100 m long runs far off screen,
  // and stepping all of it every half sample was most of an overlay's cost. The same steps as the
  // whole line's (k / steps), so the stroke lands on the same samples in every band.
  const [u0, u1] = visiblePart(ax, ay, bx, by, -s.width - 2, -s.width - 2, width + s.width + 2, height + s.width + 2);
  if (!(u0 <= u1)) return;
  for (let k = Math.max(0, Math.floor(u0 * steps)), kEnd = Math.min(steps, Math.ceil(u1 * steps)); k <= kEnd; k++) {
    // Screen-space parameter -> homogeneous parameter, so depth along the line is perspective-correct.
    const u = k / steps;
    const sx = ax + (bx - ax) * u, sy = ay + (by - ay) * u;
    const iw = (1 - u) / A[2] + u / B[2];
    const x0 = Math.round(sx - half), y0 = Math.round(sy - half);
    for (let y = y0; y < y0 + s.width; y++) {
      if (y < 0 || y >= height) continue;
      for (let x = x0; x < x0 + s.width; x++) {
        if (x < 0 || x >= width) continue;
        const i = y * width + x;
        if (stamp[i] === id) continue;
        stamp[i] = id;
        const alpha = iw >= depth[i] * DEPTH_SLACK ? s.alpha : s.hiddenAlpha;
        if (alpha <= 0) continue;
        const o = i * 3;
        color[o] += (s.color[0] - color[o]) * alpha;
        color[o + 1] += (s.color[1] - color[o + 1]) * alpha;
        color[o + 2] += (s.color[2] - color[o + 2]) * alpha;
      }
    }
  }
}

/**
 * The part [u0, u1] of the screen segment a -> b (u = 0 at a, 1 at b) inside the rectangle
 * x0..x1, y0..y1 (Liang–Barsky); u0 > u1 when it misses. NaN ends miss.
 */
function visiblePart(ax: number, ay: number, bx: number, by: number, x0: number, y0: number, x1: number, y1: number): [number, number] {
  let u0 = 0, u1 = 1;
  const dx = bx - ax, dy = by - ay;
  const edges: [number, number][] = [[-dx, ax - x0], [dx, x1 - ax], [-dy, ay - y0], [dy, y1 - ay]];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (!(q >= 0)) return [1, 0]; // parallel and outside (or NaN)
      continue;
    }
    const r = q / p;
    if (p < 0) u0 = Math.max(u0, r);
    else u1 = Math.min(u1, r);
  }
  return Number.isNaN(u0) || Number.isNaN(u1) ? [1, 0] : [u0, u1];
}

/**
 * Draws each label centred just above its projected position: white 5x7 text with a dark outline.
 * A label that would overlap one already drawn moves up a line at a time (objects at the same
 * spot, e.g. a light at the origin inside a cube, stay readable).
 */
export function drawLabels(out: RenderOutput, view: ViewSetup, labels: readonly { text: string; position: Vec3; color?: Vec3 }[]): void {
  const scale = out.height >= 540 ? 2 : 1;
  const m = view.m;
  const taken: [number, number, number, number][] = [];
  const lineH = (GLYPH_H + 3) * scale;
  for (const label of labels) {
    const p = label.position;
    if (!Array.isArray(p) || typeof label.text !== "string") continue;
    const W = m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11];
    if (!(W > view.near)) continue;
    const X = (m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3]) / W;
    const Y = (m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7]) / W;
    if (!(Math.abs(X) < 1e6 && Math.abs(Y) < 1e6)) continue;
    const text = label.text.slice(0, 64);
    const tw = (text.length * (GLYPH_W + 1) - 1) * scale;
    const left = Math.round(X - tw / 2);
    let top = Math.round(Y - lineH);
    const overlaps = (t: number) => taken.some(([l, tt, r, b]) => left - 2 < r && left + tw + 2 > l && t - 2 < b && t + GLYPH_H * scale + 2 > tt);
    for (let k = 0; k < 12 && overlaps(top); k++) top -= lineH;
    taken.push([left, top, left + tw, top + GLYPH_H * scale]);
    const ink = label.color ? label.color.map((c) => Math.round(255 * Math.min(1, Math.max(0, c)))) : [255, 255, 255];
    // Outline first (every ink pixel's 8 neighbours), then the ink on top.
    for (const pass of [0, 1]) {
      for (let c = 0; c < text.length; c++) {
        const code = text.charCodeAt(c);
        for (let gy = 0; gy < GLYPH_H; gy++) {
          for (let gx = 0; gx < GLYPH_W; gx++) {
            if (!glyphInk(code, gx, gy)) continue;
            const px = left + (c * (GLYPH_W + 1) + gx) * scale, py = top + gy * scale;
            if (pass === 0) fill(out, px - 1, py - 1, scale + 2, [20, 20, 24]);
            else fill(out, px, py, scale, ink);
          }
        }
      }
    }
  }
}

function fill(out: RenderOutput, x0: number, y0: number, size: number, rgb: number[]): void {
  for (let y = Math.max(0, y0); y < Math.min(out.height, y0 + size); y++) {
    for (let x = Math.max(0, x0); x < Math.min(out.width, x0 + size); x++) {
      const o = (y * out.width + x) * 4;
      out.data[o] = rgb[0]; out.data[o + 1] = rgb[1]; out.data[o + 2] = rgb[2];
    }
  }
}
