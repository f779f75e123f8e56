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

/** The deepest node along `path` (aliases followed), and the key node of its last step. */
function descend(doc: Document, path: readonly PathSegment[]): { node: Node | null; key?: Node } {
  let node = doc.contents as Node | null;
  let key: Node | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = (node.resolve(doc) as Node | undefined) ?? node;
    if (isMap(node)) {
      const pair = node.items.find((item) => keyText(item.key) === String(segment));
      if (!pair) break;
      key = pair.key as Node;
      // `params:` with nothing after it has a null value node; point at the key then.
      node = (pair.value as Node | null) ?? key;
    } else if (isSeq(node) && typeof segment === "number" && node.items[segment]) {
      node = node.items[segment] as Node;
      key = undefined;
    } else break;
  }
  return { node, key };
}

/** Offset inside a scalar's value → offset in the source, when the mapping is simple. */
function sourceOffset(text: string, node: Node, offset: number): number {
  const [start, end] = node.range ?? [0, 0];
  if (!isScalar(node) || typeof node.value !== "string") return start;
  const raw = text.slice(start, end);
  if (node.type === "PLAIN" && raw === node.value) return start + offset;
  const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE";
  if (quoted && raw.slice(1, -1) === node.value) return start + 1 + offset;
  return start;
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
    locate: atStart,
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
  const locate: YamlSource["locate"] = (path, opts = {}) => {
    const { node, key } = descend(doc, path);
    const target = opts.key && key ? key : node;
    if (!target?.range) return atStart();
    return at(opts.offset === undefined ? target.range[0] : sourceOffset(text, target, opts.offset));
  };
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
  if (errors.length > 0) return { value: undefined, errors, warnings, locate };

  if (!isMap(doc.contents)) {
    const found = doc.contents === null ? "an empty document" : isSeq(doc.contents) ? "a list" : "a single value";
    return fail(`a recipe is a YAML mapping with name, description and steps, not ${found}`);
  }
  checkKeys(doc.contents, [], report);
  if (errors.length > 0) return { value: undefined, errors, warnings, locate };

  try {
    const value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
    // Aliases can stack shallow collections into a deep value; bound what later code recurses on.
    if (depthOf(value, limits.maxDepth) > limits.maxDepth) {
      return fail(`aliases nest the value deeper than ${limits.maxDepth} levels; a recipe never needs that`);
    }
    return { value, errors, warnings, locate };
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
