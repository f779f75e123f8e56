/**
 * Frame buffers reused from one frame to the next. A 1920x1080 frame with 2x2 samples needs
 * ~130 MB of depth and colour, and the shadow maps ~18 MB more; fresh memory costs a page fault
 * per 4 KiB page the first time it is touched (~3 ms per MB on the machines Kiln runs on, a third
 * of such a frame). Buffers are kept per role and grown on demand. Every frame overwrites what it
 * reads (renderScene clears depth, and writes every colour sample before resolving), so no frame
 * can see another's pixels; frames run one at a time per thread. Buffers above RETAIN_MAX floats
 * (a rare, very large screenshot) are not kept, so a worker never holds more than ~200 MB for it.
 */
const RETAIN_MAX = 32 * 1024 * 1024;
const pool = new Map<string, Float32Array>();

/** A Float32Array of `length` for `role`, reused across frames; its contents are whatever the last frame left. */
export function scratchF32(role: string, length: number): Float32Array {
  if (length > RETAIN_MAX) return new Float32Array(length);
  let buffer = pool.get(role);
  if (!buffer || buffer.length < length) pool.set(role, (buffer = new Float32Array(length)));
  return buffer.subarray(0, length);
}
