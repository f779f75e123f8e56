/**
 * Number formatting and parsing shared by the text formats (OBJ, USDA), as strings and, for the
 * writers' and readers' hot loops, straight to and from bytes.
 */

/**
 * Shortest decimal for `v` at 9 significant digits: enough to restore any float32 exactly, and
 * short for round values ("1", "0.5") so files stay readable and small. Equal to
 * `String(Number(v.toPrecision(9)))`, but trims the zeros by hand in the common fixed-point case:
 * a writer calls this millions of times for a large mesh, and the round trip through Number costs
 * three times as much.
 */
export function formatFloat(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const s = v.toPrecision(9);
  if (s.includes("e")) return String(Number(s));
  if (!s.includes(".")) return s; // nine integer digits: nothing to trim
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--; // trailing "0"s after the point
  if (s.charCodeAt(end - 1) === 46) end--; // a bare "."
  return s.slice(0, end);
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k); // 10^0..10^22, all exact doubles

/** Room `writeFloat` may need: its longest text is formatFloat's "-123456789000000000000". */
export const MAX_FLOAT_BYTES = 24;

/**
 * Writes `formatFloat(v)` as ASCII into `out` at `at` (MAX_FLOAT_BYTES of room needed) and returns
 * the end. Builds the nine digits by integer arithmetic instead of a string per number: for
 * 10⁻⁶ ≤ |v| < 10⁹ it rounds |v|·10^(8−e) once, where formatFloat rounds the exact decimal value,
 * so the last digit can differ on near-ties; both restore the same float32.
 */
export function writeFloat(out: Uint8Array, at: number, v: number): number {
  const a = Math.abs(v);
  if (Number.isInteger(v) && a < 2147483648) {
    if (v < 0) out[at++] = 45; // "-"
    return writeDigits(out, at, a | 0, 0);
  }
  if (!(a >= 1e-6 && a < 1e9)) return writeAscii(out, at, formatFloat(v));
  // The decimal exponent by comparisons (Math.log10 costs as much as the rest): possibly one off
  // near powers of ten, as is a rounding that carries into a tenth digit; both are fixed below.
  let e = 0;
  if (a >= 1) while (a >= POW10[e + 1]) e++;
  else do e--; while (a * POW10[-e] < 1);
  let m = Math.round(a * POW10[8 - e]);
  if (m >= 1e9) m = Math.round(a * POW10[8 - ++e]);
  else if (m < 1e8) m = Math.round(a * POW10[8 - --e]);
  if (e > 8 || m >= 1e9) return writeAscii(out, at, formatFloat(v)); // rounded up to 10⁹
  let digits = m | 0;
  let decimals = 8 - e;
  for (let q = (digits / 10) | 0; decimals > 0 && digits === q * 10; q = (digits / 10) | 0) {
    digits = q;
    decimals--;
  }
  if (v < 0) out[at++] = 45;
  return writeDigits(out, at, digits, decimals);
}

/** Writes the integer `n` ≥ 0 as ASCII and returns the end. */
export function writeUint(out: Uint8Array, at: number, n: number): number {
  return n < 2147483648 ? writeDigits(out, at, n, 0) : writeAscii(out, at, String(n));
}

/** Writes `n` (an int32 ≥ 0) with a decimal point `decimals` digits from the right. */
function writeDigits(out: Uint8Array, at: number, n: number, decimals: number): number {
  let length = n < 1e5 ? (n < 100 ? (n < 10 ? 1 : 2) : n < 1e3 ? 3 : n < 1e4 ? 4 : 5) : n < 1e7 ? (n < 1e6 ? 6 : 7) : n < 1e8 ? 8 : n < 1e9 ? 9 : 10;
  if (length <= decimals) length = decimals + 1; // the "0" of "0.xxx" and zeros after the point
  const end = decimals > 0 ? at + length + 1 : at + length;
  let i = end;
  for (let k = 0; k < decimals; k++) {
    const q = (n / 10) | 0;
    out[--i] = 48 + n - q * 10;
    n = q;
  }
  if (decimals > 0) out[--i] = 46; // "."
  while (i > at) {
    const q = (n / 10) | 0;
    out[--i] = 48 + n - q * 10;
    n = q;
  }
  return end;
}

/** Writes an ASCII string byte by byte and returns the end. */
export function writeAscii(out: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
  return at;
}

const utf8 = new TextEncoder();

/**
 * Growable byte buffer for text writers. Hot loops `reserve` room for a line, write into the
 * returned array from `length` themselves and advance `length`: building lines as strings and
 * encoding them costs several times more at millions of lines.
 */
export class ByteWriter {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Makes room for `n` more bytes and returns the (possibly new) array to write into. */
  reserve(n: number): Uint8Array {
    if (this.length + n > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    return this.bytes;
  }

  /** Appends `text` as UTF-8 and a "\n". */
  line(text: string): void {
    this.reserve(text.length * 3 + 1); // UTF-16 unit → at most 3 UTF-8 bytes
    this.length += utf8.encodeInto(text, this.bytes.subarray(this.length)).written;
    this.bytes[this.length++] = 10;
  }

  /** The bytes written so far (a view, not a copy). */
  result(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

const utf8Decoder = new TextDecoder();

/**
 * `Number(text)` for the UTF-8 text in `bytes[start, end)`, without making the string when the
 * text is a plain decimal (`-12.5`, `1e-7`, `.5`): up to 15 significant digits m and a power of
 * ten k with |k| ≤ 22 are both exact doubles, so one multiplication or division rounds m·10^k
 * correctly (Clinger's fast path). Anything else goes through Number.
 */
export function parseNumber(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  const negative = i < end && bytes[i] === 45; // "-"
  if (negative || (i < end && bytes[i] === 43)) i++; // "+"
  let m = 0, digits = 0, exponent = 0, mantissaDigits = 0;
  for (; i < end; i++) {
    const d = bytes[i] - 48;
    if (d < 0 || d > 9) break;
    mantissaDigits++;
    if (m === 0 && d === 0) continue; // leading zeros are not significant
    m = m * 10 + d;
    digits++;
  }
  if (i < end && bytes[i] === 46) { // "."
    for (i++; i < end; i++) {
      const d = bytes[i] - 48;
      if (d < 0 || d > 9) break;
      mantissaDigits++;
      exponent--;
      if (m === 0 && d === 0) continue;
      m = m * 10 + d;
      digits++;
    }
  }
  if (i < end && (bytes[i] | 32) === 101 && mantissaDigits > 0) { // "e" or "E"
    i++;
    const negativeExponent = i < end && bytes[i] === 45;
    if (negativeExponent || (i < end && bytes[i] === 43)) i++;
    let e = 0, exponentDigits = 0;
    for (; i < end && bytes[i] >= 48 && bytes[i] <= 57 && exponentDigits < 6; i++, exponentDigits++) e = e * 10 + bytes[i] - 48;
    if (exponentDigits === 0) i = -1; // "1e" is NaN; let Number say so
    exponent += negativeExponent ? -e : e;
  }
  if (i !== end || mantissaDigits === 0 || digits > 15 || exponent < -22 || exponent > 22) {
    return Number(utf8Decoder.decode(bytes.subarray(start, end)));
  }
  const value = exponent < 0 ? m / POW10[-exponent] : m * POW10[exponent];
  return negative ? -value : value;
}
