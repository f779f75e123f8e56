/**
 * Parser for the USDA text subset that usd.ts writes and that common exporters (Blender, three's
 * USDZExporter) emit: prims with metadata, typed attributes with default values, `.timeSamples`
 * and `.connect`, relationships, dictionaries (customData; keys bare or quoted, entry types kept
 * aside for `dictType`, a "__proto__" key an ordinary own key), asset paths, strings with USD's
 * escapes, triple-quoted ones included. Not supported (they throw a parse error rather than being
 * misread): variant sets and `@@@` assets.
 *
 * Numeric arrays take a fast path straight into flat number arrays, because mesh data dominates
 * file size (a million triangles is ~10 million numbers).
 *
 * The parser recurses into prims, tuples, lists and dictionaries, so nesting is capped
 * (LIMITS.usdaDepth): a hostile file of a few kilobytes of "[" must not exhaust the stack.
 */
import { LIMITS, LimitError } from "./limits";

/** A parsed value. Numeric arrays (and arrays of numeric tuples) arrive flattened as `number[]`; asset paths as strings. */
export type UsdValue = number | string | boolean | null | UsdPath | UsdValue[] | UsdDict | Map<number, UsdValue>;
/** A `<path>` value. */
export interface UsdPath { path: string }
/** A `{ type name = value }` dictionary; the types are kept aside (`dictType`). */
export interface UsdDict { [key: string]: UsdValue }

/** Declared types of parsed dictionaries' entries, off the dictionaries so their keys stay the file's. */
const DICT_TYPES = new WeakMap<UsdDict, Map<string, string>>();
/** The declared type (`string`, `int64`, `bool[]`, `dictionary`, …) of a parsed dictionary's entry. */
export function dictType(dict: UsdDict, key: string): string | undefined {
  return DICT_TYPES.get(dict)?.get(key);
}
/** Whether `v` is a parsed dictionary (not a `<path>`, list or time samples). */
export function isDict(v: UsdValue | undefined): v is UsdDict {
  return typeof v === "object" && v !== null && DICT_TYPES.has(v as UsdDict);
}
/** Sets `dict[key]` as an own entry, even for a key such as "__proto__" that plain assignment would treat specially. */
const setKey = (dict: UsdDict, key: string, value: UsdValue) => Object.defineProperty(dict, key, { value, enumerable: true, writable: true, configurable: true });

/** An attribute or relationship. */
export interface UsdProperty {
  /** Value type (`point3f[]`, `token`, …) or `rel`. */
  type: string;
  value?: UsdValue;
  timeSamples?: Map<number, UsdValue>;
  connect?: UsdValue;
  metadata: UsdDict;
}

/** A prim and its subtree. */
export interface UsdPrim {
  specifier: string;
  type: string;
  name: string;
  path: string;
  metadata: UsdDict;
  properties: Map<string, UsdProperty>;
  children: UsdPrim[];
}

/** A parsed layer: its metadata and root prims. */
export interface UsdLayer { metadata: UsdDict; prims: UsdPrim[] }

const PUNCT = new Set(["(", ")", "[", "]", "{", "}", "=", ",", ":", ";", "<"]);
const LIST_OPS = new Set(["prepend", "append", "add", "delete", "reorder"]);
const QUALIFIERS = new Set(["custom", "uniform", "varying", "config"]);

/** USD's one-letter string escapes; any other escaped character stands for itself (\\, \", \'). */
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v" };
/** Escaped bytes are UTF-8 text; a malformed sequence becomes U+FFFD, never an error. */
const UTF8 = new TextDecoder("utf-8");

/** Parses USDA text; throws with a line number on anything outside the supported subset. */
export function parseUsda(text: string): UsdLayer {
  if (!text.startsWith("#usda")) throw new Error("usda: missing #usda header");
  let pos = text.indexOf("\n");
  let depth = 0;
  const line = () => {
    let n = 1;
    for (let at = text.indexOf("\n"); at >= 0 && at < pos; at = text.indexOf("\n", at + 1)) n++;
    return n;
  };
  const fail = (msg: string): never => {
    throw new Error(`usda: ${msg} at line ${line()}`);
  };
  /** Runs `f` one nesting level deeper, refusing past the cap. */
  const nested = <T>(f: () => T): T => {
    if (++depth > LIMITS.usdaDepth) throw new LimitError(`usda: nesting deeper than ${LIMITS.usdaDepth} levels at line ${line()}`);
    const out = f();
    depth--;
    return out;
  };
  // Character-code scanning: regexes per character are several times slower on large meshes.
  const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
  const isNumChar = (c: number) => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69;
  const isWordChar = (c: number) => (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
  const skip = () => {
    for (;;) {
      while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++;
      if (text[pos] !== "#") return;
      while (pos < text.length && text[pos] !== "\n") pos++;
    }
  };
  const peek = (): string => {
    skip();
    const c = text[pos];
    if (c === undefined) return "";
    if (PUNCT.has(c) || c === ">" || c === "@") return c;
    if (c === '"' || c === "'") return "string";
    if (text.startsWith("inf", pos) || text.startsWith("-inf", pos) || text.startsWith("nan", pos)) return "number";
    return isNumChar(text.charCodeAt(pos)) ? "number" : "word";
  };
  const expect = (tok: string) => (peek() === tok ? pos++ : fail(`expected "${tok}"`));
  const word = (): string => {
    skip();
    const start = pos;
    while (pos < text.length && isWordChar(text.charCodeAt(pos))) pos++;
    return start === pos ? fail("expected a name") : text.slice(start, pos);
  };
  const number = (): number => {
    skip();
    for (const special of ["inf", "-inf", "nan"]) {
      if (text.startsWith(special, pos)) return (pos += special.length), special === "nan" ? NaN : special === "inf" ? Infinity : -Infinity;
    }
    const start = pos;
    while (pos < text.length && isNumChar(text.charCodeAt(pos))) pos++;
    const v = Number(text.slice(start, pos));
    return Number.isNaN(v) ? fail(`bad number "${text.slice(start, pos)}"`) : v;
  };
  /**
   * A quoted string, '…', "…" or triple-quoted (which may span lines), with USD's C-style escapes.
   * `\xNN` and octal `\NNN` are bytes, as in USD (TfEscapeString): consecutive ones are decoded
   * together as UTF-8, so "caf\xc3\xa9" is "café", not "cafÃ©".
   */
  const string = (): string => {
    skip();
    const start = pos;
    const q = text[pos];
    if (q !== '"' && q !== "'") fail("expected a quoted string");
    // Triple quotes only when they close somewhere: `""` followed by a quote is an empty string
    // (as USD's lexer reads it).
    const quote = text.startsWith(q + q + q, pos) && text.indexOf(q + q + q, pos + 3) >= 0 ? q + q + q : q;
    pos += quote.length;
    let out = "";
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) out += UTF8.decode(Uint8Array.from(bytes));
      bytes = [];
    };
    while (!text.startsWith(quote, pos)) {
      if (pos >= text.length) (pos = start), fail("unterminated string"); // located where it opens
      if (pos - start > LIMITS.usdaStringBytes) throw new LimitError(`usda: a string longer than ${LIMITS.usdaStringBytes} characters at line ${line()}`);
      if (text[pos] !== "\\") {
        // The run up to the next escape or quote as one slice: appending it character by
        // character made a rope of one node per character (a 200 MB string took 2.6 GB).
        flush();
        let end = pos + 1;
        while (end < text.length && text[end] !== "\\" && text[end] !== q) end++;
        out += text.slice(pos, end);
        pos = end;
        continue;
      }
      const e = text[++pos];
      pos++;
      if (e === "x") {
        const hex = /^[0-9a-fA-F]{1,2}/.exec(text.slice(pos, pos + 2));
        if (!hex) fail("bad \\x escape in a string");
        bytes.push(parseInt(hex![0], 16));
        pos += hex![0].length;
      } else if (e >= "0" && e <= "7") {
        const oct = /^[0-7]{0,2}/.exec(text.slice(pos, pos + 2))![0];
        bytes.push(parseInt(e + oct, 8) & 255);
        pos += oct.length;
      } else {
        flush();
        out += ESCAPES[e] ?? e;
      }
    }
    flush();
    pos += quote.length;
    return out;
  };
  /** Fast path: `[` followed by numbers and tuples only, flattened. */
  const numericArray = (): number[] | null => {
    const start = pos;
    const out: number[] = [];
    pos++; // '['
    for (;;) {
      const c = peek();
      if (c === "]") return pos++, out;
      if (c === "(" || c === ")" || c === ",") pos++;
      else if (c === "number") out.push(number());
      else return (pos = start), null;
    }
  };
  const value = (): UsdValue => {
    const c = peek();
    if (c === "number") return number();
    if (c === "string") return string();
    if (c === "<") {
      const end = text.indexOf(">", pos);
      if (end < 0) fail("unterminated path");
      const path = text.slice(pos + 1, end);
      pos = end + 1;
      return { path };
    }
    if (c === "(" || c === "[") {
      if (c === "[") {
        const fast = numericArray();
        if (fast) return fast;
      }
      const close = c === "(" ? ")" : "]";
      pos++;
      const items: UsdValue[] = [];
      nested(() => {
        while (peek() !== close) {
          items.push(value());
          if (peek() === ",") pos++;
        }
      });
      pos++;
      return items;
    }
    if (c === "{") return nested(braces);
    if (c === "@") {
      const end = text.indexOf("@", pos + 1);
      if (end < 0) fail("unterminated asset path");
      const asset = text.slice(pos + 1, end);
      pos = end + 1;
      return asset;
    }
    const w = word();
    return w === "true" ? true : w === "false" ? false : w === "None" ? null : w;
  };
  /** `{ 0: v, 24: v }` (time samples) or `{ type name = v }` (dictionary). */
  const braces = (): Map<number, UsdValue> | UsdDict => {
    expect("{");
    if (peek() === "number") {
      const samples = new Map<number, UsdValue>();
      while (peek() !== "}") {
        const t = number();
        expect(":");
        samples.set(t, value());
        if (peek() === ",") pos++;
      }
      pos++;
      return samples;
    }
    const dict: UsdDict = {};
    const types = new Map<string, string>();
    DICT_TYPES.set(dict, types);
    while (peek() !== "}") {
      let type = word();
      if (peek() === "[") (expect("["), expect("]"), (type += "[]"));
      // Keys are identifiers or quoted strings (USD's grammar: dictionary_key is an identifier, a keyword or a string).
      const name = peek() === "string" ? string() : word();
      expect("=");
      setKey(dict, name, value());
      types.set(name, type);
      if (peek() === ";" || peek() === ",") pos++;
    }
    pos++;
    return dict;
  };
  /** `( key = value ... )` metadata; list-op prefixes are dropped, a bare string is `doc`. */
  const metadata = (): UsdDict => {
    const out: UsdDict = {};
    if (peek() !== "(") return out;
    pos++;
    while (peek() !== ")") {
      if (peek() === "string") {
        out.doc = string();
        continue;
      }
      let key = word();
      if (LIST_OPS.has(key)) key = word();
      expect("=");
      setKey(out, key, value());
      if (peek() === ";") pos++;
    }
    pos++;
    return out;
  };
  const prim = (specifier: string, parentPath: string): UsdPrim => {
    const type = peek() === "word" ? word() : "";
    const name = string();
    const path = `${parentPath === "/" ? "" : parentPath}/${name}`;
    const p: UsdPrim = { specifier, type, name, path, metadata: metadata(), properties: new Map(), children: [] };
    expect("{");
    while (peek() !== "}") {
      let w = word();
      if (w === "def" || w === "over" || w === "class") {
        p.children.push(nested(() => prim(w, path)));
        continue;
      }
      while (QUALIFIERS.has(w)) w = word();
      let type = w;
      if (peek() === "[") (expect("["), expect("]"), (type += "[]"));
      const full = word();
      const [propName, suffix] = full.endsWith(".timeSamples") || full.endsWith(".connect") ? [full.slice(0, full.lastIndexOf(".")), full.slice(full.lastIndexOf(".") + 1)] : [full, ""];
      const prop = p.properties.get(propName) ?? { type, metadata: {} };
      p.properties.set(propName, prop);
      if (peek() === "=") {
        pos++;
        const v = value();
        if (suffix === "timeSamples") prop.timeSamples = v as Map<number, UsdValue>;
        else if (suffix === "connect") prop.connect = v;
        else prop.value = v;
      }
      Object.assign(prop.metadata, metadata());
    }
    pos++;
    return p;
  };

  const layer: UsdLayer = { metadata: metadata(), prims: [] };
  while (peek() !== "") {
    const w = word();
    if (w !== "def" && w !== "over" && w !== "class") fail(`unexpected "${w}"`);
    layer.prims.push(prim(w, "/"));
  }
  return layer;
}
