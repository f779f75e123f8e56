/**
 * Streaming pre-scans: a file from outside is counted chunk by chunk, in constant memory, before
 * any reader allocates for what it holds (docs/pipeline.md, "Pre-scan"). Each scanner sees the
 * file's bytes in pieces of any size (`push`), keeps a few counters across the pieces and throws
 * a LimitError as soon as a count passes its limit, so a file of two million objects is refused
 * after reading the first ~100,001, not after building them.
 *
 * The counts are upper bounds of what the reader will make: a file the pre-scan passes can still
 * be refused by the reader (which checks again as it allocates) or by checkDecodedScene, never the
 * other way round for what is counted here.
 */
import type { TransferFormat } from "./interchange";
import { LIMITS, LimitError } from "./limits";

/** A scanner fed a file's bytes in order. */
export interface Prescan {
  push(bytes: Uint8Array): void;
  /** The file ended; final checks. */
  end(): void;
}

/** JavaScript's one-byte blanks (\t \n \v \f \r space), as the OBJ reader splits tokens. */
const isBlank = (c: number) => c <= 32 && (c === 32 || (c >= 9 && c <= 13));

/**
 * OBJ: the objects that get faces (each is a node with its own mesh, and the reader allocates
 * its arrays when the first face arrives) and the triangles the faces make (a face of n corners
 * is n - 2). Objects start at `o`, or at `g` in files without any `o` (obj-read.ts): both ways are
 * counted, and the file's own is judged at the end, or at once when `o` objects alone pass the
 * limit.
 */
export class ObjPrescan implements Prescan {
  /** Where in a line the scan is: reading its first word, skipping to its end, or counting a face's corners. */
  private mode: "key" | "skip" | "face" = "key";
  private key = "";
  private keyStarted = false;
  private inToken = false;
  private corners = 0;
  private first = true;
  private hasO = false;
  private newO = true;
  private newG = true;
  private objectsO = 0;
  private objectsG = 0;
  private triangles = 0;

  push(bytes: Uint8Array): void {
    let i = 0;
    if (this.first && bytes.length) {
      this.first = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // byte-order mark
    }
    const n = bytes.length;
    while (i < n) {
      if (this.mode === "skip") {
        const nl = bytes.indexOf(10, i);
        if (nl < 0) return;
        i = nl + 1;
        this.mode = "key";
        continue;
      }
      const c = bytes[i++];
      if (this.mode === "face") {
        if (c === 10) this.endFace();
        else if (isBlank(c)) this.inToken = false;
        else if (!this.inToken) (this.inToken = true), this.corners++;
        continue;
      }
      // mode "key": the line's first word, up to 8 bytes of it (longer ones are no statement counted here).
      if (c === 10 || isBlank(c)) {
        if (this.keyStarted) this.endKey(c);
        continue;
      }
      this.keyStarted = true;
      if (this.key.length < 8) this.key += String.fromCharCode(c);
    }
  }

  /** The line's first word ended at `c` (a blank or "\n"). */
  private endKey(c: number): void {
    const key = this.key;
    this.key = "";
    this.keyStarted = false;
    if (key === "f") {
      this.mode = "face";
      this.inToken = false;
      this.corners = 0;
      if (c === 10) this.endFace();
      return;
    }
    if (key === "o") {
      if (c !== 10) this.hasO = true;
      this.newO = this.newG = true;
    } else if (key === "g") this.newG = true;
    this.mode = c === 10 ? "key" : "skip";
  }

  private endFace(): void {
    this.mode = "key";
    this.triangles += Math.max(0, this.corners - 2);
    if (this.triangles > LIMITS.triangles) throw new LimitError(`obj: the faces make more than ${LIMITS.triangles} triangles; at most ${LIMITS.triangles} are read`);
    if (this.newO) (this.objectsO++, (this.newO = false));
    if (this.newG) (this.objectsG++, (this.newG = false));
    if (this.hasO && this.objectsO > LIMITS.nodes) throw tooManyObjects(`more than ${LIMITS.nodes}`);
  }

  /** What was counted so far: nodes the reader will make (at most) and triangles. */
  counts(): { objects: number; triangles: number } {
    return { objects: this.hasO ? this.objectsO : this.objectsG, triangles: this.triangles };
  }

  end(): void {
    if (this.mode === "face") this.endFace();
    const objects = this.hasO ? this.objectsO : this.objectsG;
    if (objects > LIMITS.nodes) throw tooManyObjects(String(objects));
  }
}

const tooManyObjects = (count: string) => new LimitError(`obj: the file has ${count} objects with faces (each one node); at most ${LIMITS.nodes} nodes are read`);

/**
 * USDA: the length of every quoted string ('…', "…", triple-quoted), asset path (@…@) and path
 * (<…>), in bytes between its delimiters, and the line it starts on. A string is one value of
 * the parser, so one of 200 MB was a 200 MB value (2.6 GB on the way); none may pass
 * LIMITS.usdaStringBytes. A triple quote is taken as one here even if it never closes (the
 * parser then reads an empty string): the count is an upper bound.
 */
export class UsdaPrescan implements Prescan {
  private mode: "code" | "comment" | "quote1" | "quote2" | "string" | "triple" | "asset" | "path" = "code";
  private quote = 0;
  /** Quotes in a row seen inside a triple-quoted string. */
  private run = 0;
  private escaped = false;
  private length = 0;
  private line = 1;
  private startLine = 1;

  /** `maxString`: the cap (LIMITS.usdaStringBytes; smaller in tests). */
  constructor(private readonly maxString: number = LIMITS.usdaStringBytes) {}

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const m = this.mode;
      if (m === "string" || m === "asset" || m === "path" || m === "comment" || (m === "triple" && this.run === 0 && !this.escaped)) {
        // Inside one of these only its end, an escape or a line break matters: jump there with
        // the native search (a byte loop took 4.7 s over a 32 MiB string on a loaded machine).
        const next = this.stop(bytes, i);
        if (this.mode !== "comment") this.length += next - i;
        if (this.length > this.maxString) return this.grow();
        if (next === bytes.length) return;
        i = next;
      }
      const c = bytes[i];
      if (c === 10) this.line++;
      switch (this.mode) {
        case "code":
          if (c === 35) this.mode = "comment"; // #
          else if (c === 34 || c === 39) [this.mode, this.quote, this.startLine] = ["quote1", c, this.line];
          else if (c === 64) this.open("asset"); // @
          else if (c === 60) this.open("path"); // <
          break;
        case "comment":
          if (c === 10) this.mode = "code";
          break;
        case "quote1": // one quote: a second makes "" (empty, or a triple's start)
          if (c === this.quote) this.mode = "quote2";
          else (this.open("string"), this.inString(c));
          break;
        case "quote2":
          if (c === this.quote) (this.open("triple"), (this.run = 0));
          else (this.mode = "code"), i--, c === 10 && this.line--; // "" was empty: read this byte as code
          break;
        case "string":
          this.inString(c);
          break;
        case "triple":
          // Quotes in a row are counted once a byte other than a third one follows them.
          if (!this.escaped && c === this.quote) {
            if (++this.run === 3) this.mode = "code";
            break;
          }
          for (; this.run > 0; this.run--) this.grow();
          this.grow();
          this.escaped = !this.escaped && c === 92;
          break;
        case "asset":
          if (c === 64) this.mode = "code";
          else this.grow();
          break;
        case "path":
          if (c === 62) this.mode = "code";
          else this.grow();
          break;
      }
    }
  }

  /** Where the current string, asset path, path or comment may end or change state: the first byte that matters. */
  private stop(bytes: Uint8Array, from: number): number {
    const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const first = (a: number, c: number) => (a < 0 ? c : c < 0 ? a : Math.min(a, c));
    const quoted = this.mode === "string" || this.mode === "triple";
    const end = quoted ? this.quote : this.mode === "asset" ? 64 : this.mode === "path" ? 62 : 10;
    let at = b.indexOf(end, from);
    if (quoted) at = first(at, b.indexOf(92, from));
    if (this.mode !== "comment") at = first(at, b.indexOf(10, from));
    return at < 0 ? bytes.length : at;
  }

  private open(mode: "string" | "triple" | "asset" | "path"): void {
    if (mode === "asset" || mode === "path") this.startLine = this.line;
    this.mode = mode;
    this.length = 0;
    this.escaped = false;
  }

  private inString(c: number): void {
    if (this.escaped) this.escaped = false;
    else if (c === 92) this.escaped = true;
    else if (c === this.quote) return void (this.mode = "code");
    this.grow();
  }

  /** One more byte in the current string (or, past the cap already, the refusal). */
  private grow(): void {
    if (this.length <= this.maxString) this.length++;
    if (this.length > this.maxString)
      throw new LimitError(`usda: the ${this.mode === "asset" ? "asset path" : this.mode === "path" ? "path" : "string"} starting at line ${this.startLine} is longer than ${this.maxString} bytes; at most ${this.maxString} are read`);
  }

  end(): void {}
}

/** The pre-scan of a format, or null where the reader's own checks come first (see docs/pipeline.md). */
export function prescanFor(format: TransferFormat): Prescan | null {
  if (format === "obj") return new ObjPrescan();
  if (format === "usd") return new UsdaPrescan();
  return null;
}
