/**
 * YAML text → plain value plus a position map, safe for hostile input. Invariants:
 * - never throws on bad input: every problem is a RecipeIssue with a 1-based line and column;
 * - size, step count (estimated from `tool:` keys) and nesting are checked BEFORE the YAML
 *   parser runs: parsing costs ~2 ms per KB on the event loop, and its its recursion on deep input can
 *   exhaust the stack, and near the stack limit V8 has been seen to abort the whole process;
 * - keys that name JavaScript object internals (`__proto__`, `constructor`, `prototype`) are
 *   rejected, so no later lookup or spread can touch a prototype;
 * - aliases expand at most `maxAliasCount` times (yaml's own guard against "billion laughs").
 */
import { CST, Lexer, LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument } from "yaml";
import type { Document, Node } from "yaml";
import { MAX_RECIPE_STEPS } from "./limits";
import type { RecipeIssue } from "./types";

/** A step along a path into the document: a mapping key or a sequence index. */
export type PathSegment = string | number;

/** Limits for untrusted recipe text; every field is optional when passed in. */
export interface ParseLimits {
  /** Largest accepted text, in UTF-8 bytes. */
  maxBytes: number;
  /** Deepest accepted nesting of mappings and sequences. */
  maxDepth: number;
  /** How many alias expansions yaml may perform while building the value. */
  maxAliasCount: number;
  /** Problems beyond this count are summarised in one last issue. */
  maxErrors: number;
  /** Most steps a recipe may have (estimated before parsing, then checked exactly by the schema). */
  maxSteps: number;
}

/** Defaults: 256 KiB, depth 64, 100 aliases, 100 issues, 1,000 steps (docs/recipes.md, "Limits"). */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxBytes: 256 * 1024,
  maxDepth: 64,
  maxAliasCount: 100,
  maxErrors: 100,
  maxSteps: MAX_RECIPE_STEPS,
};

/**
 * Upper bound of the step count without parsing: every step has a `tool` key, so count the
 * lines or flow mappings that start one. Keys named `tool` inside params count too, which only
 * errs towards refusing a file with more than maxSteps of them.
 */
function countToolKeys(text: string): number {
  return text.match(/(?:^|[{,])[ \t]*(?:- +)?["']?tool["']?[ \t]*:/gm)?.length ?? 0;
}

/** Result of parsing: `value` is undefined when `errors` is not empty. */
export interface YamlSource {
  value: unknown;
  errors: RecipeIssue[];
  warnings: RecipeIssue[];
  /**
   * Line/column of the node at `path`, or of its deepest existing ancestor. `key: true` points at
   * the mapping key instead of its value; `offset` is a character offset inside a scalar's value.
   */
  locate(path: readonly PathSegment[], options?: { key?: boolean; offset?: number }): { line: number; column: number };
  /** What `locate` reads, as plain data (a worker sends it back; `locator` rebuilds `locate`). */
  positions: YamlPositions;
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Renders a path the way users read it: `steps[2].params.position.x`; odd keys are quoted.
 * @example formatPath(["steps", 2, "params", "my key"]) // 'steps[2].params["my key"]'
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** 1-based line and column of a character offset, without a LineCounter. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Upper bound of the nesting depth, from yaml's own lexer (iterative, so safe on any input, and
 * it quotes exactly as the parser will). Block depth is bounded by the stack of increasing
 * indents of content lines plus the indicators (`- `, `: `, `? `) on the current line; flow depth
 * by open brackets. Returns the offset where the bound first exceeds `maxDepth`.
 */
function findExcessiveNesting(text: string, maxDepth: number): number | undefined {
  const indents: number[] = [];
  let flow = 0;
  let onLine = 0;
  let offset = 0;
  let lineIndent: number | undefined = 0;
  let afterScalarMarker = false;
  for (const token of new Lexer().lex(text)) {
    if (token === CST.DOCUMENT || token === CST.FLOW_END || token === CST.SCALAR) {
      afterScalarMarker = token === CST.SCALAR;
      continue;
    }
    const start = offset;
    offset += token.length;
    const type = afterScalarMarker ? "scalar-source" : CST.tokenType(token);
    afterScalarMarker = false;
    if (type === "newline" || (type === "scalar-source" && token.endsWith("\n"))) {
      lineIndent = 0;
      onLine = 0;
      continue;
    }
    if (type === "space" && lineIndent === 0 && start > 0 && text[start - 1] === "\n") {
      lineIndent = token.length;
      continue;
    }
    if (type === "space" || type === "comment" || type === "byte-order-mark") continue;
    if (lineIndent !== undefined && flow === 0) {
      // The first content token of a line: blank and comment lines must not pop the stack.
      while (indents.length > 0 && indents[indents.length - 1] > lineIndent) indents.pop();
      if (indents.length === 0 || indents[indents.length - 1] < lineIndent) indents.push(lineIndent);
    }
    lineIndent = undefined;
    if (type === "flow-seq-start" || type === "flow-map-start") flow++;
    else if (type === "flow-seq-end" || type === "flow-map-end") flow = Math.max(0, flow - 1);
    else if (flow === 0 && (type === "seq-item-ind" || type === "map-value-ind" || type === "explicit-key-ind")) onLine++;
    if (indents.length + onLine + flow > maxDepth) return start;
  }
  return undefined;
}

function keyText(key: unknown): string | undefined {
  if (!isScalar(key)) return undefined;
  return typeof key.value === "string" || typeof key.value === "number" ? String(key.value) : undefined;
}

/**
 * Where each node of a document starts, as flat typed arrays and one string: a worker thread
 * parses and sends this back (prepare.ts, prepareRecipe) for the price of a few buffer copies,
 * where a tree of objects cost the event loop ~100 ms to receive for 10,000 steps. `locate`
 * reads only this, in-process and after a worker alike, so both give the same line and column.
 * Node n is `nodes[5n .. 5n+4]`: start offset (-1: none), offset of a string scalar's value when
 * it is its source text (plain, or quoted without escapes; else -1), kind (NodeKind), and for a
 * mapping or sequence the first slot and count of its entries or items; for an alias, its target.
 */
export interface YamlPositions {
  /** yaml's LineCounter.lineStarts. */
  lineStarts: Int32Array;
  /** Index of the document's root node, -1 for none. */
  root: number;
  nodes: Int32Array;
  /** Mapping entries, 4 ints each: key node, value node (the key's when empty), key text start and end in `keys`. */
  entries: Int32Array;
  /** Sequence items: node index, -1 for none. */
  items: Int32Array;
  /** The key texts, concatenated. */
  keys: string;
}

const enum NodeKind { Leaf = 0, Map = 1, Seq = 2, Alias = 3 }
const NODE = 5;
const ENTRY = 4;

/** No document: locate answers line 1, column 1. */
const NO_POSITIONS: YamlPositions = { lineStarts: new Int32Array(0), root: -1, nodes: new Int32Array(0), entries: new Int32Array(0), items: new Int32Array(0), keys: "" };

/** The positions of a parsed document; nesting is bounded by findExcessiveNesting before parsing. */
function positionsOf(doc: Document, text: string, lineStarts: number[]): YamlPositions {
  const index = new Map<unknown, number>();
  const nodes: number[] = [];
  const entries: number[] = [];
  const items: number[] = [];
  const keys: string[] = [];
  let keysLength = 0;
  const visit = (node: unknown): number => {
    if (!node || typeof node !== "object") return -1;
    const known = index.get(node);
    if (known !== undefined) return known;
    const n = node as Node;
    const id = nodes.length / NODE;
    index.set(node, id);
    nodes.push(n.range ? n.range[0] : -1, -1, NodeKind.Leaf, 0, 0);
    const set = (kind: NodeKind, first: number, count = 0) => {
      nodes[id * NODE + 2] = kind;
      nodes[id * NODE + 3] = first;
      nodes[id * NODE + 4] = count;
    };
    if (isAlias(node)) {
      set(NodeKind.Alias, -1);
      nodes[id * NODE + 3] = visit(node.resolve(doc));
    } else if (isMap(node)) {
      // The first of equal keys wins, as a search in document order would find it.
      const seen = new Set<string>();
      const pairs = node.items.filter((pair) => {
        const name = keyText(pair.key);
        return name !== undefined && !seen.has(name) && (seen.add(name), true);
      });
      const first = entries.length / ENTRY;
      set(NodeKind.Map, first, pairs.length);
      for (const _ of pairs) entries.push(-1, -1, 0, 0);
      pairs.forEach((pair, k) => {
        const name = keyText(pair.key)!;
        const key = visit(pair.key);
        const value = visit(pair.value);
        // `params:` with nothing after it has a null value node; point at the key then.
        const at = (first + k) * ENTRY;
        entries[at] = key;
        entries[at + 1] = value === -1 ? key : value;
        entries[at + 2] = keysLength;
        entries[at + 3] = keysLength + name.length;
        keys.push(name);
        keysLength += name.length;
      });
    } else if (isSeq(node)) {
      const first = items.length;
      set(NodeKind.Seq, first, node.items.length);
      for (const _ of node.items) items.push(-1);
      node.items.forEach((item, k) => (items[first + k] = visit(item)));
    } else if (isScalar(node) && typeof node.value === "string" && n.range) {
      const [start, end] = n.range;
      const raw = text.slice(start, end);
      if (node.type === "PLAIN" && raw === node.value) nodes[id * NODE + 1] = start;
      else if ((node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE") && raw.slice(1, -1) === node.value) nodes[id * NODE + 1] = start + 1;
    }
    return id;
  };
  const root = visit(doc.contents);
  return {
    lineStarts: Int32Array.from(lineStarts), root,
    nodes: Int32Array.from(nodes), entries: Int32Array.from(entries), items: Int32Array.from(items), keys: keys.join(""),
  };
}

/** yaml's LineCounter.linePos over plain line starts: 1-based line and column of an offset. */
function linePos(lineStarts: Int32Array, offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (lineStarts[mid] < offset) low = mid + 1;
    else high = mid;
  }
  if (lineStarts[low] === offset) return { line: low + 1, column: 1 };
  if (low === 0) return { line: 0, column: offset };
  return { line: low, column: offset - lineStarts[low - 1] + 1 };
}

/**
 * `locate` of a YamlSource from plain positions: the node at `path` (aliases followed) or its
 * deepest existing ancestor; `key` points at the mapping key, `offset` into a scalar's value.
 */
export function locator({ lineStarts, root, nodes, entries, items, keys }: YamlPositions): YamlSource["locate"] {
  const entryOf = (node: number, name: string) => {
    const first = nodes[node * NODE + 3];
    for (let e = first; e < first + nodes[node * NODE + 4]; e++) {
      const start = entries[e * ENTRY + 2];
      if (entries[e * ENTRY + 3] - start === name.length && keys.startsWith(name, start)) return e;
    }
    return -1;
  };
  return (path, opts = {}) => {
    let node = root;
    let key = -1;
    for (const segment of path) {
      if (node === -1) break;
      if (nodes[node * NODE + 2] === NodeKind.Alias && nodes[node * NODE + 3] !== -1) node = nodes[node * NODE + 3];
      const kind = nodes[node * NODE + 2];
      if (kind === NodeKind.Map) {
        const e = entryOf(node, String(segment));
        if (e === -1) break;
        key = entries[e * ENTRY];
        node = entries[e * ENTRY + 1];
      } else if (kind === NodeKind.Seq && typeof segment === "number" && Number.isInteger(segment) && segment >= 0 && segment < nodes[node * NODE + 4]) {
        const item = items[nodes[node * NODE + 3] + segment];
        if (item === -1) break;
        node = item;
        key = -1;
      } else break;
    }
    const target = opts.key && key !== -1 ? key : node;
    if (target === -1 || nodes[target * NODE] === -1) return { line: 1, column: 1 };
    const text = nodes[target * NODE + 1];
    return linePos(lineStarts, opts.offset === undefined || text === -1 ? nodes[target * NODE] : text + opts.offset);
  };
}

/** Path of the innermost node containing `offset`, for errors that yaml reports by offset. */
function pathAt(doc: Document, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  const contains = (n: unknown) => !!n && !!(n as Node).range && (n as Node).range![0] <= offset && offset < (n as Node).range![2];
  let node = doc.contents as unknown;
  while (node) {
    if (isMap(node)) {
      const pair = node.items.find((item) => contains(item.key) || contains(item.value));
      const key = pair && keyText(pair.key);
      if (!pair || key === undefined) break;
      path.push(key);
      node = contains(pair.value) ? pair.value : undefined;
    } else if (isSeq(node)) {
      const index = node.items.findIndex(contains);
      if (index === -1) break;
      path.push(index);
      node = node.items[index];
    } else break;
  }
  return path;
}

/**
 * Parses recipe YAML (a single mapping) with positions kept for every error.
 * @example
 * const { value, errors, locate } = parseRecipeYaml(text);
 * locate(["steps", 0, "tool"]); // { line: 12, column: 11 }
 */
export function parseRecipeYaml(text: string, options: Partial<ParseLimits> = {}): YamlSource {
  const limits = { ...DEFAULT_PARSE_LIMITS, ...options };
  const atStart = () => ({ line: 1, column: 1 });
  const fail = (message: string, at = atStart()): YamlSource => ({
    value: undefined,
    errors: [{ path: "", ...at, message }],
    warnings: [],
    locate: locator(NO_POSITIONS),
    positions: NO_POSITIONS,
  });
  if (typeof text !== "string") return fail("recipe text must be a string");
  // Characters never outnumber UTF-8 bytes, so the cheap test rejects huge input before counting.
  const bytes = text.length > limits.maxBytes ? text.length : Buffer.byteLength(text, "utf8");
  if (bytes > limits.maxBytes) {
    return fail(`the recipe is too large: ${bytes} bytes or more, the limit is ${limits.maxBytes} bytes`);
  }
  const toolKeys = countToolKeys(text);
  if (toolKeys > limits.maxSteps) {
    return fail(`the recipe has ${toolKeys} tool: keys, so more than ${limits.maxSteps} steps; the limit is ${limits.maxSteps} steps`);
  }
  const deepAt = findExcessiveNesting(text, limits.maxDepth);
  if (deepAt !== undefined) {
    return fail(`nesting is deeper than ${limits.maxDepth} levels; a recipe never needs that`, positionOf(text, deepAt));
  }

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const positions = positionsOf(doc, text, lineCounter.lineStarts);
  const locate = locator(positions);
  const errors: RecipeIssue[] = [];
  const report = (path: PathSegment[], offset: number, message: string) => {
    if (errors.length < limits.maxErrors) errors.push({ path: formatPath(path), ...at(offset), message });
  };

  for (const error of doc.errors) {
    const message =
      error.code === "MULTIPLE_DOCS"
        ? "a recipe file holds one YAML document; remove the extra `---`"
        : error.code === "DUPLICATE_KEY"
          ? "duplicate key: each key may appear once in a mapping"
          : error.message;
    report(pathAt(doc, error.pos[0]), error.pos[0], message);
  }
  const warnings = doc.warnings.map((w) => ({ path: formatPath(pathAt(doc, w.pos[0])), ...at(w.pos[0]), message: w.message }));
  if (errors.length > 0) return { value: undefined, errors, warnings, locate, positions };

  if (!isMap(doc.contents)) {
    const found = doc.contents === null ? "an empty document" : isSeq(doc.contents) ? "a list" : "a single value";
    return fail(`a recipe is a YAML mapping with name, description and steps, not ${found}`);
  }
  checkKeys(doc.contents, [], report);
  if (errors.length > 0) return { value: undefined, errors, warnings, locate, positions };

  try {
    const value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    // Aliases can stack shallow collections into a deep value; bound what later code recurses on.
    if (depthOf(value, limits.maxDepth) > limits.maxDepth) {
      return fail(`aliases nest the value deeper than ${limits.maxDepth} levels; a recipe never needs that`);
    }
    return { value, errors, warnings, locate, positions };
  } catch (error) {
    // toJS throws on unresolved aliases and on excessive alias expansion (alias bombs).
    const reason = error instanceof Error ? error.message : String(error);
    return fail(/alias count/i.test(reason) ? `aliases expand more than ${limits.maxAliasCount} times; refusing to expand them` : reason);
  }
}

/** Nesting depth of a plain value, iteratively; stops counting once past `max`. */
function depthOf(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > max) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Rejects keys that are not plain text and keys naming object internals. Depth is bounded above. */
function checkKeys(node: unknown, path: PathSegment[], report: (p: PathSegment[], offset: number, m: string) => void): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = keyText(pair.key);
      const offset = (pair.key as Node | null)?.range?.[0] ?? 0;
      if (key === undefined) report(path, offset, "mapping keys must be plain text");
      else if (FORBIDDEN_KEYS.has(key)) report([...path, key], offset, `the key "${key}" is not allowed`);
      else checkKeys(pair.value, [...path, key], report);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => checkKeys(item, [...path, index], report));
  }
}
