/**
 * Conventions the FBX writer and reader must agree on, and the math that converts between the
 * interchange model (glTF conventions) and FBX's.
 */
import { Matrix4, Quaternion, Vector3 } from "three";

/**
 * GlobalSettings.UnitScaleFactor we write: 1 file unit = 100 cm = 1 m, so coordinates stay in metres
 * and Blender/Unity/Maya import at the right size. Readers divide by 100 to get metres from
 * whatever factor a file declares (1 = centimetres, the FBX default).
 */
export const FBX_UNIT_SCALE = 100;

/**
 * FBX cameras look along their local +X (with +Y up); interchange cameras look along -Z. A camera
 * model's FBX rotation is therefore the interchange rotation followed by this 90° turn about Y
 * (Blender's io_scene_fbx uses the same correction).
 */
export const CAMERA_FIX = new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), Math.PI / 2);

/** FBX lights shine along their local -Y; interchange lights along -Z: a 90° turn about X. */
export const LIGHT_FIX = new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), Math.PI / 2);

/**
 * Vertical film back (mm) that camera FocalLength values are computed against: the FBX SDK
 * default FilmHeight (0.612 in). FBX SDK readers use FieldOfView (written too); Blender uses
 * FocalLength with the film size, so both must agree. FBXLoader exposes only the focal length,
 * so the reader converts it back with this same film height.
 */
export const FBX_FILM_HEIGHT_MM = 0.612 * 25.4;

/** Name of the material FBXLoader invents for meshes without one (three's Loader.DEFAULT_MATERIAL_NAME). */
export const FBX_DEFAULT_MATERIAL = "__DEFAULT";

/**
 * Name of the placeholder material the writer connects for an empty material slot (FBX slots are
 * the connected materials, so an empty one needs an object); the reader reads it as empty again.
 */
export const FBX_EMPTY_SLOT = "Kiln empty slot";

const IDENTITY = new Quaternion();

/**
 * Converts a local transform between conventions: `parentFix⁻¹ · M · ownFix`. Writers pass the
 * FBX fixes (own = this node's camera/light fix, parent = its parent's); readers pass the inverses.
 * Because the fixes are 90° axis turns, the result still decomposes exactly into TRS (a
 * non-uniform scale just has two axes swapped).
 */
export function refixMatrix(m: Matrix4, ownFix: Quaternion | null, parentFix: Quaternion | null): Matrix4 {
  const own = new Matrix4().makeRotationFromQuaternion(ownFix ?? IDENTITY);
  const parentInv = new Matrix4().makeRotationFromQuaternion((parentFix ?? IDENTITY).clone().invert());
  return parentInv.multiply(m).multiply(own);
}

/** Same conversion for one keyframe; channels absent from the key stay absent. */
export function refixKey(
  key: { t?: [number, number, number]; r?: [number, number, number, number]; s?: [number, number, number] },
  ownFix: Quaternion | null,
  parentFix: Quaternion | null,
): typeof key {
  const out: typeof key = {};
  const pInv = (parentFix ?? IDENTITY).clone().invert();
  const own = ownFix ?? IDENTITY;
  if (key.t) out.t = new Vector3(...key.t).applyQuaternion(pInv).toArray() as [number, number, number];
  if (key.r) {
    const q = pInv.clone().multiply(new Quaternion(...key.r)).multiply(own);
    out.r = [q.x, q.y, q.z, q.w];
  }
  if (key.s) {
    // own⁻¹ · S · own is diagonal for a 90° axis turn: read the permuted scale off its columns.
    const m = new Matrix4().makeRotationFromQuaternion(own.clone().invert()).multiply(new Matrix4().makeScale(...key.s)).multiply(new Matrix4().makeRotationFromQuaternion(own));
    const e = m.elements;
    out.s = [e[0] + e[1] + e[2], e[4] + e[5] + e[6], e[8] + e[9] + e[10]];
  }
  return out;
}

/**
 * Runs `fn` with console.warn redirected into `warnings`. The FBX exporter and FBXLoader report
 * what they skip only through console.warn; capturing it keeps those drops visible to callers.
 * Safe because both run synchronously, so no other code can warn in between.
 */
export function captureWarnings<T>(warnings: string[], prefix: string, fn: () => T): T {
  const original = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(prefix + args.map(String).join(" "));
  try {
    return fn();
  } finally {
    console.warn = original;
  }
}
