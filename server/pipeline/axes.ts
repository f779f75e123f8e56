/**
 * Axis conventions between an app's own space and the interchange (canonical) space.
 *
 * B = appToCanonical(app) is a signed permutation (Blender: a -90° turn about X; Unity: a mirror
 * of X; Godot: identity). A local transform L in app space is B·L·Bᵀ in canonical space, so that
 * geometry converted by B stays put under it. Lights (and cameras) differ in which local axis they
 * look along, so their nodes carry a "fix" F (also a signed permutation): the interchange node is
 * Fₚᵀ·(B·L·Bᵀ)·Fₛ, where Fₛ is the node's own fix and Fₚ its parent's (as FBX camera/light nodes
 * do). Because B and F only permute and flip axes, translation and scale convert exactly (even
 * negative scales); only rotations go through floating-point products.
 */
import { Matrix4, Quaternion } from "three";
import { appToCanonical, eulerToMatrix, localForward } from "../scene/math";
import type { AppId, Vec3 } from "../scene/types";

/** 3x3 matrix, row-major: m[r * 3 + c]. */
export type M3 = number[];
export type V3 = [number, number, number];

export const IDENTITY3: M3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

export function mul3(a: M3, b: M3): M3 {
  const out = new Array<number>(9);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
  return out;
}

export function transpose3(m: M3): M3 {
  return [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];
}

export function apply3(m: M3, v: V3): V3 {
  return [m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2], m[6] * v[0] + m[7] * v[1] + m[8] * v[2]];
}

/** Upper-left 3x3 of a column-major 4x4 (the scene core's Mat4 layout), row-major. */
function fromMat4(m: ArrayLike<number>): M3 {
  return [m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]];
}

const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** The app → canonical change of basis. */
export function basis(app: AppId): M3 {
  return fromMat4(appToCanonical(app));
}

/**
 * The fix of a light node: maps the interchange light frame (looks -Z, up +Y) onto the app's
 * light frame seen in canonical space (looks B·localForward, up B·(+Y)). Identity for Godot,
 * a half turn about Y for Unity (its lights look +Z), -90° about X for Blender.
 */
export function lightFix(app: AppId): M3 {
  const b = basis(app);
  const up = apply3(b, [0, 1, 0]);
  const back = apply3(b, localForward(app).map((v) => -v) as V3);
  const right = cross(up, back);
  return [right[0], up[0], back[0], right[1], up[1], back[1], right[2], up[2], back[2]];
}

/** diag(s') = G·diag(s)·Gᵀ for a signed permutation G: the scale components follow the axes. */
function permuteScale(g: M3, s: V3): V3 {
  const out: V3 = [0, 0, 0];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) if (g[r * 3 + c] !== 0) out[r] = s[c];
  return out;
}

/** A local transform with its rotation as a matrix. */
export interface Trs { t: V3; r: M3; s: V3 }

/** App-space local transform → interchange local transform (see the module comment). */
export function trsToCanonical(app: AppId, local: Trs, ownFix: M3 = IDENTITY3, parentFix: M3 = IDENTITY3): Trs {
  const b = basis(app);
  const pt = transpose3(parentFix);
  return {
    t: apply3(mul3(pt, b), local.t),
    r: mul3(mul3(pt, mul3(mul3(b, local.r), transpose3(b))), ownFix),
    s: permuteScale(mul3(transpose3(ownFix), b), local.s),
  };
}

/** Interchange local transform → app-space local transform (inverse of trsToCanonical). */
export function trsFromCanonical(app: AppId, local: Trs, ownFix: M3 = IDENTITY3, parentFix: M3 = IDENTITY3): Trs {
  const bt = transpose3(basis(app));
  return {
    t: apply3(mul3(bt, parentFix), local.t),
    r: mul3(mul3(mul3(bt, parentFix), mul3(local.r, transpose3(ownFix))), basis(app)),
    s: permuteScale(mul3(bt, ownFix), local.s),
  };
}

const DEG = 180 / Math.PI;

/** Rotation matrix of an app's Euler angles (degrees), in the app's own order. */
export function eulerToM3(app: AppId, r: Vec3): M3 {
  return fromMat4(eulerToMatrix(app, r));
}

/** Unit quaternion [x, y, z, w] of a rotation matrix. */
export function m3ToQuat(m: M3): [number, number, number, number] {
  const q = new Quaternion().setFromRotationMatrix(new Matrix4().set(m[0], m[1], m[2], 0, m[3], m[4], m[5], 0, m[6], m[7], m[8], 0, 0, 0, 0, 1)).normalize();
  return [q.x, q.y, q.z, q.w];
}

/** Rotation matrix of a quaternion [x, y, z, w] (normalised first: files carry float32 values). */
export function quatToM3(q: ArrayLike<number>): M3 {
  const e = new Matrix4().makeRotationFromQuaternion(new Quaternion(q[0], q[1], q[2], q[3]).normalize()).elements;
  return fromMat4(e);
}

/** Below this cos of the middle angle the decomposition is in gimbal lock (first and last axes align). */
const GIMBAL = 1e-9;

/**
 * The two Euler solutions of R = A(a)·B(b)·C(c) as [a, b, c] in radians: the principal one
 * (b in [-90°, 90°]) and its twin (a + 180°, 180° - b, c + 180°). In gimbal lock only a ± c is
 * determined: c is set to 0 and the twin is the same rotation.
 */
function eulerSolutions(app: AppId, m: M3): [V3, V3] {
  const at = (r: number, c: number) => m[(r - 1) * 3 + (c - 1)];
  let a: number, b: number, c: number;
  if (app === "blender") {
    // R = Rz(a)·Ry(b)·Rx(c): m31 = -sin b, m32 = cos b sin c, m33 = cos b cos c, m21 = sin a cos b, m11 = cos a cos b.
    const cb = Math.hypot(at(3, 2), at(3, 3));
    b = Math.atan2(-at(3, 1), cb);
    if (cb > GIMBAL) [a, c] = [Math.atan2(at(2, 1), at(1, 1)), Math.atan2(at(3, 2), at(3, 3))];
    else [a, c] = [Math.atan2(-at(1, 2), at(2, 2)), 0];
  } else {
    // R = Ry(a)·Rx(b)·Rz(c): m23 = -sin b, m13 = sin a cos b, m33 = cos a cos b, m21 = cos b sin c, m22 = cos b cos c.
    const cb = Math.hypot(at(1, 3), at(3, 3));
    b = Math.atan2(-at(2, 3), cb);
    if (cb > GIMBAL) [a, c] = [Math.atan2(at(1, 3), at(3, 3)), Math.atan2(at(2, 1), at(2, 2))];
    else [a, c] = [Math.atan2(-at(3, 1), at(1, 1)), 0];
  }
  return [[a, b, c], [a + Math.PI, Math.PI - b, c + Math.PI]];
}

/** Euler angles (degrees, the app's order) from an [outer, middle, inner] solution. */
const toVec = (app: AppId, [a, b, c]: V3): Vec3 => (app === "blender" ? { x: c * DEG, y: b * DEG, z: a * DEG } : { x: b * DEG, y: a * DEG, z: c * DEG });

/** Wraps degrees into (-180, 180], with values within 1e-9 of -180 read as 180. */
function wrap(deg: number): number {
  let d = deg % 360;
  if (d > 180) d -= 360;
  if (d <= -180 + 1e-9) d += 360;
  return d;
}

/** `deg` shifted by whole turns to lie within 180° of `near`. */
const closest = (deg: number, near: number) => deg - 360 * Math.round((deg - near) / 360);

/**
 * Euler angles (degrees) of a rotation matrix in the app's own order. Without `near` the result
 * is the principal solution, angles in (-180, 180] and the middle one in [-90, 90]. With `near`
 * (the previous key of an animation) it is the equivalent triple closest to it, so that keys
 * interpolated angle by angle do not spin the long way round (Blender's "Euler filter").
 */
export function m3ToEuler(app: AppId, m: M3, near?: Vec3): Vec3 {
  const solutions = eulerSolutions(app, m).map((s) => toVec(app, s));
  if (!near) {
    const p = solutions[0];
    return { x: wrap(p.x), y: wrap(p.y), z: wrap(p.z) };
  }
  const fitted = solutions.map((s) => ({ x: closest(s.x, near.x), y: closest(s.y, near.y), z: closest(s.z, near.z) }));
  const distance = (v: Vec3) => Math.abs(v.x - near.x) + Math.abs(v.y - near.y) + Math.abs(v.z - near.z);
  return distance(fitted[1]) < distance(fitted[0]) - 1e-9 ? fitted[1] : fitted[0];
}

/** Vec3 ↔ tuple. */
export const v3 = (v: Vec3): V3 => [v.x, v.y, v.z];
export const vec = (t: ArrayLike<number>): Vec3 => ({ x: t[0], y: t[1], z: t[2] });

/**
 * Converts flat xyz triples (positions or normals) by the signed permutation `g` into a new
 * array. Index order is kept: a mirroring basis (Unity's) turns counter-clockwise front faces into
 * clockwise ones, which is exactly what the left-handed app treats as front (see primitives.ts).
 */
export function permuteTriples(g: M3, src: ArrayLike<number>): Float32Array {
  const from: number[] = [], sign: number[] = [];
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) if (g[r * 3 + c] !== 0) (from[r] = c, sign[r] = g[r * 3 + c]);
  const out = new Float32Array(src.length);
  const [f0, f1, f2] = from, [s0, s1, s2] = sign;
  for (let i = 0; i < src.length; i += 3) {
    out[i] = s0 * src[i + f0];
    out[i + 1] = s1 * src[i + f1];
    out[i + 2] = s2 * src[i + f2];
  }
  return out;
}

/**
 * G·M·Gᵀ of a column-major 4×4 matrix M, G the 3×3 change of basis (embedded with w = 1): a
 * matrix that maps points of one convention, re-expressed in another. Skin inverse bind matrices
 * convert this way, since positions convert by G and joints' world matrices by G·W·Gᵀ.
 */
export function conjugateMat4(g: M3, m: ArrayLike<number>): number[] {
  const G = [g[0], g[3], g[6], 0, g[1], g[4], g[7], 0, g[2], g[5], g[8], 0, 0, 0, 0, 1]; // column-major
  const Gt = [g[0], g[1], g[2], 0, g[3], g[4], g[5], 0, g[6], g[7], g[8], 0, 0, 0, 0, 1];
  const mul = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    const out = new Array<number>(16).fill(0);
    for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
    return out;
  };
  return mul(mul(G, m), Gt).map((v) => v + 0);
}
