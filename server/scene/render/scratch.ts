/**
 * Buffers reused from one frame to the next. A 1920x1080 frame with 2x2 samples needs
 * ~130 MB of depth and colour, and the shadow maps ~18 MB more; fresh memory costs a page fault
 * per 4 KiB page the first time it is touched (~3 ms per MB on the machines Kiln runs on, a third
 * of such a frame). Buffers are kept per role and grown on demand. Every frame overwrites what it
 * reads (renderScene clears depth, and writes every colour sample before resolving), so no frame
 * can see another's pixels; frames run one at a time per thread. A buffer longer than its role's
 * `keep` (by default RETAIN_MAX elements: a rare, very large screenshot) is not kept, so a worker
 * never holds more than a few hundred MB for it.
 */
const RETAIN_MAX = 32 * 1024 * 1024;

type Typed = Float32Array | Float64Array | Uint8Array | Uint32Array;
interface TypedConstructor<T extends Typed> { new (length: number): T }
const pool = new Map<string, Typed>();

/**
 * A typed array of `length` for `role`, reused across frames (kept while at most `keep` elements
 * long); its contents are whatever the last user of the role left.
 */
export function scratch<T extends Typed>(role: string, Kind: TypedConstructor<T>, length: number, keep = RETAIN_MAX): T {
  if (length > keep) return new Kind(length);
  let buffer = pool.get(role) as T | undefined;
  if (!buffer || buffer.length < length) pool.set(role, (buffer = new Kind(length)));
  return buffer.subarray(0, length) as T;
}

/** A Float32Array of `length` for `role`, reused across frames (see scratch). */
export function scratchF32(role: string, length: number): Float32Array {
  return scratch(role, Float32Array, length);
}
