/**
 * Binary FBX at the level of its node tree: every node has a name, typed properties and child
 * nodes, and big arrays may be zlib-compressed. This reads and writes that tree and knows nothing
 * of what the nodes mean (fbx.ts and fbx-read.ts do).
 *
 * Our own rather than a library's because of speed: the FBX libraries on npm inflate and deflate
 * arrays with pure-JS zlib and copy them element by element, which took two seconds each way for a
 * million-triangle mesh. Here arrays go through Node's native zlib and are copied as whole blocks.
 * The layout follows the FBX SDK as Blender's encoder documents it (io_scene_fbx/encode_bin.py).
 */
import { deflateSync, inflateSync } from "node:zlib";
import { LIMITS, LimitError } from "./limits";

/** A property's type code, as the file stores it. */
export type FbxType = "Y" | "C" | "I" | "F" | "D" | "L" | "S" | "R" | "b" | "c" | "i" | "l" | "f" | "d";

/** A property: scalars as numbers (int64 as bigint), strings and raw data as bytes, arrays as typed arrays. */
export type FbxProperty =
  | { type: "Y" | "I" | "F" | "D"; value: number }
  | { type: "C"; value: boolean }
  | { type: "L"; value: bigint }
  | { type: "S" | "R" | "b" | "c"; value: Uint8Array }
  | { type: "i"; value: Int32Array }
  | { type: "l"; value: BigInt64Array }
  | { type: "f"; value: Float32Array }
  | { type: "d"; value: Float64Array };

export interface FbxNode {
  name: string;
  properties: FbxProperty[];
  children: FbxNode[];
}

/** A parsed file: its version (7400 = 7.4) and its top-level nodes. */
export interface FbxDocument {
  version: number;
  nodes: FbxNode[];
}

const MAGIC = "Kaydara FBX Binary  \0";
const HEADER = new Uint8Array([...Buffer.from(MAGIC, "latin1"), 0x1a, 0x00]);
/** Footer constants every FBX SDK file carries; readers such as Blender's check none, but tools that validate do. */
const FOOT_ID = Buffer.from("fabcab09d0c8d466b176fb831cf7267e", "hex");
const TAIL_MAGIC = Buffer.from("f85a8c6adef5d97eece90ce3758f290b", "hex");
/** Nodes that end with a null record even without children (an FBX SDK habit, kept for picky readers). */
const ALWAYS_SENTINEL = new Set(["AnimationStack", "AnimationLayer"]);
/** Arrays above this many bytes are compressed, as the FBX SDK and Blender do. */
const COMPRESS_ABOVE = 128;
const ARRAY_TYPES = { b: Uint8Array, c: Uint8Array, i: Int32Array, l: BigInt64Array, f: Float32Array, d: Float64Array } as const;
/**
 * Limits for hostile files: a few kilobytes of zlib can claim gigabytes of array, and nesting
 * thousands deep would exhaust the stack. Arrays may add up to LIMITS.fbxInflatedBytes, and to
 * at most LIMITS.fbxInflateRatio times the file (plus 64 MiB for small files), checked on the
 * sizes arrays declare BEFORE inflating them, and inflating never writes past the declared size.
 * Real files stay far below (a 1M-triangle mesh: 9 MB of file, 36 MB of arrays; DCC tools nest
 * a few levels).
 */
const MAX_DEPTH = 256;
/** Nodes plus properties: each costs a JS object of tens of bytes, from as little as 2 bytes of file. */
const MAX_ITEMS = 4_000_000;

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** True for binary FBX (ASCII FBX starts with text instead). */
export function isBinaryFbx(bytes: Uint8Array): boolean {
  return bytes.length >= HEADER.length + 4 && Buffer.from(bytes.buffer, bytes.byteOffset, HEADER.length).equals(HEADER);
}

/** The text of a string property (FBX strings are UTF-8). */
export function text(p: FbxProperty | undefined): string {
  return p && (p.type === "S" || p.type === "R") ? utf8.decode(p.value) : "";
}

/** A string property. */
export function stringProperty(s: string): FbxProperty {
  return { type: "S", value: utf8Encoder.encode(s) };
}

/** Parses binary FBX (any version from 7.0; 7.5 and later use 64-bit offsets). Throws on damaged or hostile files. */
export function readFbxBinary(bytes: Uint8Array): FbxDocument {
  if (!isBinaryFbx(bytes)) throw new Error("fbx: not a binary FBX file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(HEADER.length, true);
  const wide = version >= 7500;
  let at = HEADER.length + 4;
  let decoded = 0, items = 0;
  const maxDecoded = Math.min(LIMITS.fbxInflatedBytes, LIMITS.fbxInflateRatio * bytes.length + 64 * 2 ** 20);
  const fail = (msg: string): never => {
    throw new Error(`fbx: corrupt file at byte ${at}: ${msg}`);
  };
  const need = (n: number) => (at + n <= bytes.length ? undefined : fail("unexpected end of file"));
  const offset = () => {
    need(wide ? 8 : 4);
    const v = wide ? Number(view.getBigUint64(at, true)) : view.getUint32(at, true);
    at += wide ? 8 : 4;
    return v;
  };
  /** Bytes copied into a fresh, aligned buffer (typed arrays need alignment). */
  const copy = (data: Uint8Array) => {
    const out = new Uint8Array(data.length);
    out.set(data);
    return out.buffer;
  };

  const property = (): FbxProperty => {
    need(1);
    const type = String.fromCharCode(bytes[at++]) as FbxType;
    switch (type) {
      case "Y": need(2); at += 2; return { type, value: view.getInt16(at - 2, true) };
      case "C": need(1); at += 1; return { type, value: bytes[at - 1] !== 0 };
      case "I": need(4); at += 4; return { type, value: view.getInt32(at - 4, true) };
      case "F": need(4); at += 4; return { type, value: view.getFloat32(at - 4, true) };
      case "D": need(8); at += 8; return { type, value: view.getFloat64(at - 8, true) };
      case "L": need(8); at += 8; return { type, value: view.getBigInt64(at - 8, true) };
      case "S": case "R": {
        need(4);
        const n = view.getUint32(at, true);
        need(4 + n);
        at += 4 + n;
        return { type, value: bytes.slice(at - n, at) };
      }
      case "b": case "c": case "i": case "l": case "f": case "d": {
        need(12);
        const count = view.getUint32(at, true), encoding = view.getUint32(at + 4, true), size = view.getUint32(at + 8, true);
        at += 12;
        need(size);
        const stored = bytes.subarray(at, at + size);
        at += size;
        const Type = ARRAY_TYPES[type];
        const length = count * Type.BYTES_PER_ELEMENT;
        decoded += length;
        if (decoded > maxDecoded)
          throw new LimitError(`fbx: arrays declare ${decoded} bytes at byte ${at}, more than the ${maxDecoded} a file of ${bytes.length} bytes may inflate to (at most ${LIMITS.fbxInflateRatio} times the file plus 64 MiB, and ${LIMITS.fbxInflatedBytes / 2 ** 30} GiB)`);
        let data: Uint8Array = stored;
        if (encoding === 1) {
          try {
            data = inflateSync(stored, { maxOutputLength: Math.max(length, 1) });
          } catch (e) {
            fail(`array does not inflate to its ${length} bytes (${(e as Error).message})`);
          }
        } else if (encoding !== 0) fail(`unknown array encoding ${encoding}`);
        if (data.length !== length) fail(`array of ${count} holds ${data.length} bytes`);
        return { type, value: new Type(copy(data)) } as FbxProperty;
      }
      default: return fail(`unknown property type ${JSON.stringify(type)}`);
    }
  };

  /** One node record, or null for the null record that ends a list. */
  const node = (depth: number): FbxNode | null => {
    const end = offset(), count = offset();
    offset(); // property list length: implied by the properties themselves
    need(1);
    const nameLength = bytes[at++];
    if (end === 0) {
      // Null record: all fields zero (the name length was its last byte).
      return null;
    }
    if (depth > MAX_DEPTH) fail(`nodes nested more than ${MAX_DEPTH} deep`);
    items += 1 + count;
    if (items > MAX_ITEMS) fail(`more than ${MAX_ITEMS} nodes and properties`);
    need(nameLength);
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + at, nameLength).toString("latin1");
    at += nameLength;
    const properties: FbxProperty[] = [];
    for (let k = 0; k < count; k++) properties.push(property());
    const children: FbxNode[] = [];
    if (end > bytes.length) fail(`node "${name}" ends beyond the file`);
    while (at < end) {
      const child = node(depth + 1);
      if (child) children.push(child);
    }
    if (at !== end) fail(`node "${name}" overruns its end offset`);
    return { name, properties, children };
  };

  const nodes: FbxNode[] = [];
  for (;;) {
    const n = node(0);
    if (!n) break;
    nodes.push(n);
  }
  return { version, nodes };
}

/** One property's bytes after its type code; arrays over the threshold deflated if `compress`. */
function encodeProperty(p: FbxProperty, compress: boolean): Uint8Array {
  switch (p.type) {
    case "Y": { const b = Buffer.alloc(2); b.writeInt16LE(p.value); return b; }
    case "C": return Uint8Array.of(p.value ? 1 : 0);
    case "I": { const b = Buffer.alloc(4); b.writeInt32LE(p.value); return b; }
    case "F": { const b = Buffer.alloc(4); b.writeFloatLE(p.value); return b; }
    case "D": { const b = Buffer.alloc(8); b.writeDoubleLE(p.value); return b; }
    case "L": { const b = Buffer.alloc(8); b.writeBigInt64LE(p.value); return b; }
    case "S": case "R": {
      const b = Buffer.alloc(4 + p.value.length);
      b.writeUInt32LE(p.value.length);
      b.set(p.value, 4);
      return b;
    }
    default: {
      const raw = new Uint8Array(p.value.buffer, p.value.byteOffset, p.value.byteLength);
      // Level 1: at a million triangles, higher levels double the time for a few percent of size.
      const deflate = compress && raw.length > COMPRESS_ABOVE;
      const body = deflate ? deflateSync(raw, { level: 1 }) : raw;
      const b = Buffer.alloc(12 + body.length);
      b.writeUInt32LE(p.value.length);
      b.writeUInt32LE(deflate ? 1 : 0, 4);
      b.writeUInt32LE(body.length, 8);
      b.set(body, 12);
      return b;
    }
  }
}

/**
 * Writes a binary FBX file of `version` (7.4 uses 32-bit offsets; 7.5 and later 64-bit), with the
 * header, null records and footer laid out as the FBX SDK writes them. `compress: false` stores
 * arrays raw, for files that are read straight back in memory.
 */
export function writeFbxBinary(doc: FbxDocument, { compress = true } = {}): Uint8Array {
  const wide = doc.version >= 7500;
  const recordHead = wide ? 24 : 12;
  const sentinel = recordHead + 1;
  // Pass 1: encode the properties (compressing arrays) and measure every node.
  const encoded = new Map<FbxNode, { name: Uint8Array; props: Uint8Array[]; propsLength: number; size: number }>();
  /** A node's size; `last` because childless, propertyless nodes end in a null record unless last. */
  const measure = (n: FbxNode, last: boolean): number => {
    const name = Buffer.from(n.name, "latin1");
    if (name.length > 255) throw new Error(`fbx: node name "${n.name.slice(0, 40)}…" is too long`);
    const props = n.properties.map((p) => encodeProperty(p, compress));
    const propsLength = props.reduce((s, p) => s + 1 + p.length, 0);
    let size = recordHead + 1 + name.length + propsLength;
    n.children.forEach((c, i) => (size += measure(c, i === n.children.length - 1)));
    if (endsWithNull(n, last)) size += sentinel;
    encoded.set(n, { name, props, propsLength, size });
    return size;
  };
  const endsWithNull = (n: FbxNode, last: boolean) => n.children.length > 0 || (n.properties.length === 0 && !last) || ALWAYS_SENTINEL.has(n.name);
  const body = doc.nodes.reduce((s, n, i) => s + measure(n, i === doc.nodes.length - 1), 0);

  const start = HEADER.length + 4;
  const footerStart = start + body + sentinel;
  // Footer: id, 4 zero bytes, zeros up to a 16-byte boundary (16 if already aligned), version, 120 zeros, magic.
  const afterId = footerStart + FOOT_ID.length + 4;
  const pad = ((afterId + 15) & ~15) - afterId || 16;
  const total = afterId + pad + 4 + 120 + TAIL_MAGIC.length;
  const out = Buffer.alloc(total); // zero-filled: null records and padding need no writes
  out.set(HEADER, 0);
  out.writeUInt32LE(doc.version, HEADER.length);
  let at = start;
  const writeOffset = (v: number) => {
    if (wide) out.writeBigUInt64LE(BigInt(v), at);
    else out.writeUInt32LE(v, at);
    at += wide ? 8 : 4;
  };
  const write = (n: FbxNode, last: boolean) => {
    const e = encoded.get(n)!;
    const end = at + e.size;
    writeOffset(end);
    writeOffset(n.properties.length);
    writeOffset(e.propsLength);
    out[at++] = e.name.length;
    out.set(e.name, at);
    at += e.name.length;
    n.properties.forEach((p, k) => {
      out[at++] = p.type.charCodeAt(0);
      out.set(e.props[k], at);
      at += e.props[k].length;
    });
    n.children.forEach((c, i) => write(c, i === n.children.length - 1));
    if (endsWithNull(n, last)) at += sentinel;
    if (at !== end) throw new Error(`fbx: node "${n.name}" size mismatch`);
  };
  doc.nodes.forEach((n, i) => write(n, i === doc.nodes.length - 1));
  at += sentinel; // the null record that ends the top level
  out.set(FOOT_ID, at);
  out.writeUInt32LE(doc.version, afterId + pad);
  out.set(TAIL_MAGIC, total - TAIL_MAGIC.length);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** First child named `name`. */
export function child(n: FbxNode | undefined, name: string): FbxNode | undefined {
  return n?.children.find((c) => c.name === name);
}

/** Every child named `name`. */
export function childrenNamed(n: FbxNode | undefined, name: string): FbxNode[] {
  return n ? n.children.filter((c) => c.name === name) : [];
}
