/**
 * World-space views of a scene: parent chains resolved into matrices. Pure.
 */
import { composeTransform, multiply, type Mat4 } from "./math";
import type { ObjectRecord } from "./types";

/**
 * World matrix of every object of one scene (in the app's own space). Objects whose parent is
 * missing are treated as roots; a cycle (which the operations never create) is cut.
 */
export function worldMatrices(objects: readonly ObjectRecord[]): Map<string, Mat4> {
  const byName = new Map(objects.map((o) => [o.name, o]));
  const out = new Map<string, Mat4>();
  const resolve = (o: ObjectRecord, depth: number): Mat4 => {
    const done = out.get(o.name);
    if (done) return done;
    const local = composeTransform(o.app, o.position, o.rotation, o.scale);
    const parent = o.parent ? byName.get(o.parent) : undefined;
    const world = parent && depth < objects.length ? multiply(resolve(parent, depth + 1), local) : local;
    out.set(o.name, world);
    return world;
  };
  for (const o of objects) resolve(o, 0);
  return out;
}
