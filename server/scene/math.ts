/**
 * Small 3D math for the scene core: 4x4 column-major matrices, Euler conversions per app.
 * Hand-written because it is ~100 lines and the core must stay dependency-free and pure.
 */
import type { AppId, Vec3 } from "./types";

/** Column-major 4x4 matrix (same layout as glTF and WebGL). */
export type Mat4 = Float64Array;

const DEG = Math.PI / 180;

export function identity(): Mat4 {
  const m = new Float64Array(16);
  m[0] = m[5] = m[10] = m[15] = 1;
  return m;
}

/** a · b */
export function multiply(a: Mat4, b: Mat4): Mat4 {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = s;
    }
  return out;
}

function rotX(deg: number): Mat4 {
  const m = identity(), c = Math.cos(deg * DEG), s = Math.sin(deg * DEG);
  m[5] = c; m[6] = s; m[9] = -s; m[10] = c;
  return m;
}
function rotY(deg: number): Mat4 {
  const m = identity(), c = Math.cos(deg * DEG), s = Math.sin(deg * DEG);
  m[0] = c; m[2] = -s; m[8] = s; m[10] = c;
  return m;
}
function rotZ(deg: number): Mat4 {
  const m = identity(), c = Math.cos(deg * DEG), s = Math.sin(deg * DEG);
  m[0] = c; m[1] = s; m[4] = -s; m[5] = c;
  return m;
}

/**
 * Rotation matrix from an app's Euler angles in degrees, in that app's own order:
 * Unity applies Z, then X, then Y; Godot 3 uses YXZ (the same product); Blender's default is XYZ.
 */
export function eulerToMatrix(app: AppId, r: Vec3): Mat4 {
  if (app === "blender") return multiply(rotZ(r.z), multiply(rotY(r.y), rotX(r.x)));
  return multiply(rotY(r.y), multiply(rotX(r.x), rotZ(r.z)));
}

/** Local transform matrix T · R · S. */
export function composeTransform(app: AppId, position: Vec3, rotation: Vec3, scale: Vec3): Mat4 {
  const m = eulerToMatrix(app, rotation);
  for (let i = 0; i < 3; i++) {
    m[i] *= scale.x;
    m[4 + i] *= scale.y;
    m[8 + i] *= scale.z;
  }
  m[12] = position.x; m[13] = position.y; m[14] = position.z;
  return m;
}

/** Transforms a point (w = 1). */
export function transformPoint(m: Mat4, x: number, y: number, z: number): [number, number, number] {
  return [
    m[0] * x + m[4] * y + m[8] * z + m[12],
    m[1] * x + m[5] * y + m[9] * z + m[13],
    m[2] * x + m[6] * y + m[10] * z + m[14],
  ];
}

/** Transforms a direction (w = 0). */
export function transformDirection(m: Mat4, x: number, y: number, z: number): [number, number, number] {
  return [m[0] * x + m[4] * y + m[8] * z, m[1] * x + m[5] * y + m[9] * z, m[2] * x + m[6] * y + m[10] * z];
}

/**
 * Change of basis from an app's space to the canonical space (glTF: right-handed, Y up,
 * +Z the front of a model). Blender (Z up) maps (x, y, z) → (x, z, -y); Unity (left-handed)
 * mirrors X, as UnityGLTF does; Godot is already canonical.
 */
export function appToCanonical(app: AppId): Mat4 {
  const m = identity();
  if (app === "blender") {
    m[5] = 0; m[6] = -1; m[9] = 1; m[10] = 0;
  } else if (app === "unity") {
    m[0] = -1;
  }
  return m;
}

/** The local direction cameras and lights look along, per app (Unity +Z, the others -Z). */
export function localForward(app: AppId): [number, number, number] {
  return app === "unity" ? [0, 0, 1] : [0, 0, -1];
}
