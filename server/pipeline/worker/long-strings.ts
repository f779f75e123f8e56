/**
 * Long strings (a big mesh's base64 arrays) sent between the event loop and a worker thread
 * without stalling the event loop. Posting a message copies it into fresh memory, and on these
 * machines touching fresh memory costs ~1.5-3 ms per MB (page faults): 40 MB of mesh data held
 * every other client for ~120 ms. So strings of MIN characters or more travel in a
 * SharedArrayBuffer instead, copied in SLICE-sized pieces with a macrotask turn between them, and
 * the receiver puts them back where they were. Both ways: tasks to the worker, and its results
 * (an import plan's mesh records) back to the event loop, which rebuilds one string per turn
 * (`unpackLongStringsInTurns`).
 *
 * Paths, not marker values, say where each string goes: nothing in the data can be mistaken for one.
 */
const MIN = 256 * 1024;
const SLICE = 1024 * 1024;

type Step = string | number;
/** `ascii`: one byte per character, so the string is read back as latin1 (a plain copy, no UTF-8 decoding). */
export interface PackedStrings { buffer: SharedArrayBuffer; strings: { path: Step[]; offset: number; bytes: number; ascii?: boolean }[] }

/**
 * Long strings lie shallow (records' fields, a plan's mesh list); deeper data (a file's free-form
 * extras, possibly nested thousands deep) is left to the ordinary copy rather than walked recursively.
 */
const MAX_DEPTH = 16;

/** A copy of `value` with its long strings emptied, and where they went (the input is not changed). */
function extract(value: unknown, path: Step[], found: { path: Step[]; text: string }[]): unknown {
  if (typeof value === "string") {
    if (value.length < MIN) return value;
    found.push({ path, text: value });
    return "";
  }
  if (!value || typeof value !== "object" || path.length >= MAX_DEPTH) return value;
  const before = found.length;
  if (value instanceof Map) {
    const out = new Map();
    for (const [k, v] of value) out.set(k, typeof k === "string" ? extract(v, [...path, k], found) : v);
    return found.length === before ? value : out;
  }
  if (Array.isArray(value)) {
    const out = value.map((v, i) => extract(v, [...path, i], found));
    return found.length === before ? value : out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return value; // typed arrays and the like clone as they are
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) Object.defineProperty(out, k, { value: extract((value as Record<string, unknown>)[k], [...path, k], found), enumerable: true, writable: true, configurable: true });
  return found.length === before ? value : out;
}

const turn = () => new Promise((r) => setImmediate(r));

/** The slices [from, to) a string is copied in: SLICE characters, never splitting a surrogate pair. */
function* slices(text: string): Generator<[number, number]> {
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + SLICE);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to--;
    yield [from, to];
    from = to;
  }
}

/** UTF-8 size of a string, measured slice by slice with turns (one call on 16 MB held everyone ~20 ms). */
async function byteLengthInTurns(text: string): Promise<number> {
  let n = 0, k = 0;
  for (const [from, to] of slices(text)) {
    n += Buffer.byteLength(text.slice(from, to), "utf8");
    if (++k % 8 === 0) await turn();
  }
  return n;
}

/** `value` with its long strings moved into a shared buffer, copied slice by slice. */
export async function packLongStrings<T>(value: T): Promise<{ value: T; packed: PackedStrings | null }> {
  const found: { path: Step[]; text: string }[] = [];
  const emptied = extract(value, [], found) as T;
  if (!found.length) return { value, packed: null };
  const sizes: number[] = [];
  for (const f of found) sizes.push(await byteLengthInTurns(f.text));
  const buffer = new SharedArrayBuffer(sizes.reduce((a, b) => a + b, 0));
  const bytes = Buffer.from(buffer);
  const strings: PackedStrings["strings"] = [];
  let offset = 0;
  for (let i = 0; i < found.length; i++) {
    const { path, text } = found[i];
    strings.push({ path, offset, bytes: sizes[i], ascii: sizes[i] === text.length });
    let at = offset;
    for (const [from, to] of slices(text)) {
      at += bytes.write(text.slice(from, to), at, "utf8");
      await turn();
    }
    offset += sizes[i];
  }
  return { value: emptied, packed: { buffer, strings } };
}

/** Puts one packed string back into `value`. */
function put(value: unknown, bytes: Buffer, s: PackedStrings["strings"][number]): void {
  let parent: unknown = value;
  for (const step of s.path.slice(0, -1)) parent = parent instanceof Map ? parent.get(step) : (parent as Record<Step, unknown>)[step];
  const key = s.path[s.path.length - 1];
  const text = bytes.toString(s.ascii ? "latin1" : "utf8", s.offset, s.offset + s.bytes);
  if (parent instanceof Map) parent.set(key, text);
  else Object.defineProperty(parent, key, { value: text, enumerable: true, writable: true, configurable: true });
}

/** Puts packed strings back into `value` (in place: it is the receiver's own copy). For a worker thread. */
export function unpackLongStrings<T>(value: T, packed: PackedStrings | null): T {
  if (!packed) return value;
  const bytes = Buffer.from(packed.buffer);
  for (const s of packed.strings) put(value, bytes, s);
  return value;
}

/**
 * The same on the event loop: one string per macrotask turn, so other requests are answered
 * between them (a 1M-triangle import's ~40 MB came back as one message, materialised at once).
 */
export async function unpackLongStringsInTurns<T>(value: T, packed: PackedStrings | null): Promise<T> {
  if (!packed) return value;
  const bytes = Buffer.from(packed.buffer);
  for (const s of packed.strings) {
    await turn();
    put(value, bytes, s);
  }
  return value;
}
