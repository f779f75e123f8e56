/**
 * Camera setup: turns a (possibly degenerate) RenderCamera into one affine
 * world -> "screen-homogeneous" transform.
 *
 * Each vertex maps to (X, Y, W) where W is the view depth in metres and
 * X/W, Y/W are pixel coordinates (x right, y down, top-left origin). Keeping
 * the viewport inside the matrix means projection is two divides per vertex.
 */
import type { RenderCamera, Vec3 } from "./types";

/** Default near clip distance in metres. */
export const DEFAULT_NEAR = 0.05;

/** The camera reduced to what the pipeline needs. */
export interface ViewSetup {
  /** Rows for X, Y and W: [ax, ay, az, a0, bx, by, bz, b0, cx, cy, cz, c0]. */
  m: Float64Array;
  /** Near clip distance (> 0). */
  near: number;
  /** Far clip distance (> near, may be Infinity). */
  far: number;
  /** Sanitised eye position. */
  eye: Vec3;
  /** Orthonormal camera basis: viewing direction, right, up. */
  fwd: Vec3;
  right: Vec3;
  up: Vec3;
  /** Tangents of the horizontal and vertical half field of view. */
  tanX: number;
  tanY: number;
  /** Samples per unit of tangent (the focal length in samples) and the principal point, in this view's rows and columns. */
  focal: number;
  cx: number;
  cy: number;
}

/** Returns `v` scaled to unit length, or null when it is zero, tiny or not finite. */
export function normalizeOrNull(x: number, y: number, z: number): Vec3 | null {
  const l = Math.sqrt(x * x + y * y + z * z);
  if (!(l > 1e-12) || !Number.isFinite(l)) return null;
  return [x / l, y / l, z / l];
}

/** Cross product of two 3-vectors. */
export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function finiteOr(v: number | undefined, fallback: number): number {
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
}

/**
 * Builds the view transform; never throws: NaN / zero vectors fall back to
 * sane defaults (eye at origin, looking down -Z, Y up) so a bad camera still
 * yields a valid (if unhelpful) image. `top` shifts the image up by that many rows: a band of
 * a frame starting at row `top` is drawn as an image of its own whose row 0 is the frame's row
 * `top` (field of view and everything else stay the whole frame's).
 */
export function setupView(camera: RenderCamera, width: number, height: number, top = 0): ViewSetup {
  const e = camera?.eye ?? [0, 0, 0];
  const eye: Vec3 = [finiteOr(e[0], 0), finiteOr(e[1], 0), finiteOr(e[2], 0)];
  const f0 = camera?.forward ?? [0, 0, -1];
  const fwd = normalizeOrNull(f0[0], f0[1], f0[2]) ?? ([0, 0, -1] as Vec3);
  const u0 = camera?.up ?? [0, 1, 0];
  let right = normalizeOrNull(...cross(fwd, [u0[0], u0[1], u0[2]]));
  // up missing or parallel to forward: try world Y, then world Z.
  if (!right) right = normalizeOrNull(...cross(fwd, [0, 1, 0]));
  if (!right) right = normalizeOrNull(...cross(fwd, [0, 0, 1])) ?? ([1, 0, 0] as Vec3);
  const up = cross(right, fwd);

  let fov = finiteOr(camera?.fovYDeg, 50);
  fov = Math.min(179, Math.max(1, fov));
  const f = 1 / Math.tan((fov * Math.PI) / 360);
  const near = camera?.near !== undefined && camera.near > 0 && Number.isFinite(camera.near) ? camera.near : DEFAULT_NEAR;
  const far = camera?.far !== undefined && camera.far > near ? camera.far : Infinity;

  // W = fwd . (p - eye); X = (H f / 2) right.(p - eye) + (width / 2) W; Y = (height / 2) W - (H f / 2) up.(p - eye)
  const sx = (height * f) / 2;
  const hw = width / 2;
  const hh = height / 2 - top;
  const m = new Float64Array(12);
  for (let i = 0; i < 3; i++) {
    m[i] = sx * right[i] + hw * fwd[i];
    m[4 + i] = hh * fwd[i] - sx * up[i];
    m[8 + i] = fwd[i];
  }
  for (let r = 0; r < 3; r++) {
    m[r * 4 + 3] = -(m[r * 4] * eye[0] + m[r * 4 + 1] * eye[1] + m[r * 4 + 2] * eye[2]);
  }
  const tanY = 1 / f;
  return { m, near, far, eye, fwd, right, up, tanY, tanX: (tanY * width) / height, focal: sx, cx: hw, cy: hh };
}
