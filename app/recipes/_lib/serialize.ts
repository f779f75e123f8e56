/**
 * RecipeDraft → YAML text. Invariants:
 * - a draft that is its base unchanged gives the base text byte for byte;
 * - unchanged fields and steps are written from their parsed nodes (comments, quoting and flow
 *   style kept); changed ones are patched node by node, so a comment on a step moves with it;
 * - anything new is written in the house style of recipes/*.yaml: strings inside params and
 *   variables double-quoted, small mappings of scalars in params as `{ x: 0, y: 0, z: 0 }`, a blank
 *   line between steps, no line folding;
 * - nodes of the base are never mutated (history entries share them).
 */
import { Document, Pair, Scalar, YAMLMap, YAMLSeq, isMap, isScalar, isSeq, type Node } from "yaml";
import { STEPS_SLOT, isRecord, type DraftStep, type RecipeDraft } from "./draft";

/** Where a value sits, which decides the style of newly written nodes. */
type Context = "top" | "variables" | "step" | "params";

const FLOW_MAX_KEYS = 4;

const isScalarValue = (v: unknown) => v === null || (typeof v !== "object" && v !== undefined);

/** The context and depth of the value under `key` of a mapping at (context, depth). */
function child(context: Context, depth: number, key: string): [Context, number] {
  return context === "step" && depth === 0 && key === "params" ? ["params", 0] : [context, depth + 1];
}

/** A node for `value` in the house style (`depth` counts mappings below the context's root). */
export function createNode(value: unknown, context: Context, depth = 0): Node {
  if (Array.isArray(value)) {
    const seq = new YAMLSeq();
    seq.flow = context === "params" && value.every(isScalarValue) && value.length <= 8;
    for (const item of value) seq.items.push(createNode(item, context, depth + 1));
    return seq;
  }
  if (isRecord(value)) {
    const map = new YAMLMap();
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    map.flow = context === "params" && depth > 0 && entries.length <= FLOW_MAX_KEYS && entries.every(([, v]) => isScalarValue(v));
    for (const [key, item] of entries) map.items.push(new Pair(new Scalar(key), createNode(item, ...child(context, depth, key))));
    return map;
  }
  const scalar = new Scalar(value === undefined ? null : value);
  if (typeof value === "string") {
    if (value.includes("\n")) scalar.type = Scalar.BLOCK_LITERAL;
    else if (context === "params" || context === "variables") scalar.type = Scalar.QUOTE_DOUBLE;
  }
  return scalar;
}

/** Keeps the comments, blank line and anchor of `from` on a replacement node. */
function keepDecoration<T extends Node>(to: T, from: Node): T {
  to.commentBefore = from.commentBefore;
  to.comment = from.comment;
  to.spaceBefore = from.spaceBefore;
  if (from.anchor) to.anchor = from.anchor;
  return to;
}

function keyOf(pair: Pair): string | undefined {
  const key = isScalar(pair.key) ? pair.key.value : undefined;
  return typeof key === "string" || typeof key === "number" ? String(key) : undefined;
}

/** Deep equality of plain YAML values. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameValue(a[k], b[k]));
  }
  return Number.isNaN(a) && Number.isNaN(b);
}

/**
 * A node for `next` that reuses as much of `node` (which was written for `previous`) as still
 * applies: same keys keep their key nodes and comments, same values keep their nodes.
 */
export function patchNode(node: Node, previous: unknown, next: unknown, context: Context, depth = 0): Node {
  if (sameValue(previous, next)) return node;
  if (isMap(node) && isRecord(previous) && isRecord(next)) {
    const map = keepDecoration(new YAMLMap(), node);
    map.flow = node.flow;
    const pairs = new Map(node.items.map((pair) => [keyOf(pair as Pair), pair as Pair]));
    for (const [key, value] of Object.entries(next)) {
      if (value === undefined) continue;
      const [childContext, childDepth] = child(context, depth, key);
      const pair = pairs.get(key);
      if (pair && pair.value && key in previous) {
        map.items.push(new Pair(pair.key, patchNode(pair.value as Node, previous[key], value, childContext, childDepth)));
      } else {
        map.items.push(new Pair(pair?.key ?? new Scalar(key), createNode(value, childContext, childDepth)));
      }
    }
    if (map.flow && map.items.some((pair) => !isScalar(pair.value))) map.flow = false;
    return map;
  }
  if (isSeq(node) && Array.isArray(previous) && Array.isArray(next)) {
    const seq = keepDecoration(new YAMLSeq(), node);
    seq.flow = node.flow;
    next.forEach((item, i) => {
      const old = node.items[i] as Node | undefined;
      seq.items.push(old && i < previous.length ? patchNode(old, previous[i], item, context, depth + 1) : createNode(item, context, depth + 1));
    });
    return seq;
  }
  if (isScalar(node) && isScalarValue(next) && typeof next === typeof previous && !(typeof next === "string" && next.includes("\n"))) {
    const scalar = keepDecoration(new Scalar(next), node);
    scalar.type = node.type;
    return scalar;
  }
  return keepDecoration(createNode(next, context, depth), node);
}

/** True when the base file separates its steps with blank lines (or has too few to tell). */
function spacedSteps(draft: RecipeDraft): boolean {
  const items = draft.base?.stepsNode?.items ?? [];
  return items.length < 2 || items.slice(1).some((item) => (item as Node).spaceBefore);
}

/** A step's node: its parsed node when unchanged, patched when changed, new otherwise. */
function stepNode(draft: RecipeDraft, step: DraftStep, index: number, spaced: boolean): Node {
  const parsed = draft.base?.steps.get(step.uid);
  if (!parsed) {
    const node = createNode(step.value, "step");
    node.spaceBefore = index > 0 && spaced;
    return node;
  }
  let node = parsed.value === step.value ? parsed.node : patchNode(parsed.node, parsed.value, step.value, "step");
  // A step moved to the top must not leave a blank line under `steps:`; the one that was first
  // gets the file's spacing when it moves down.
  const wasFirst = draft.base?.stepsNode?.items[0] === parsed.node;
  const wantSpace = index === 0 ? false : wasFirst ? spaced : !!node.spaceBefore;
  if (!!node.spaceBefore !== wantSpace) {
    if (node === parsed.node) node = node.clone() as Node;
    node.spaceBefore = wantSpace;
  }
  return node;
}

function stepsNode(draft: RecipeDraft): Node {
  const seq = new YAMLSeq();
  const old = draft.base?.stepsNode;
  if (old) keepDecoration(seq, old);
  const spaced = spacedSteps(draft);
  draft.steps.forEach((step, i) => seq.items.push(stepNode(draft, step, i, spaced)));
  return seq;
}

function unchanged(draft: RecipeDraft): boolean {
  const base = draft.base;
  if (!base) return false;
  const keys = Object.keys(draft.fields);
  const baseKeys = Object.keys(base.fields);
  if (keys.length !== baseKeys.length || keys.some((k, i) => k !== baseKeys[i] || draft.fields[k] !== base.fields[k])) return false;
  if (draft.steps.length !== base.steps.size) return false;
  let i = 0;
  for (const [uid, parsed] of base.steps) {
    const step = draft.steps[i++];
    if (step.uid !== uid || step.value !== parsed.value) return false;
  }
  return true;
}

/**
 * The YAML text of a draft.
 * @example
 * const text = draftToYaml(draft); // saved as ./recipes/<name>.yaml
 */
export function draftToYaml(draft: RecipeDraft): string {
  if (unchanged(draft)) return draft.base!.text;
  const base = draft.base;
  const doc = new Document();
  const root = new YAMLMap();
  if (base?.doc.contents) keepDecoration(root, base.doc.contents as Node);
  const hasStepsKey = "steps" in draft.fields;
  for (const [key, value] of Object.entries(draft.fields)) {
    if (value === undefined) continue;
    const pair = base?.pairs.get(key);
    if (key === "steps" && (value === STEPS_SLOT || draft.steps.length > 0)) {
      const node = stepsNode(draft);
      root.items.push(new Pair(pair?.key ?? new Scalar("steps"), node));
      continue;
    }
    const context: Context = key === "variables" ? "variables" : "top";
    if (pair && key in base!.fields && base!.fields[key] === value) root.items.push(pair);
    else if (pair && pair.value && key in base!.fields) root.items.push(new Pair(pair.key, patchNode(pair.value as Node, base!.fields[key], value, context)));
    else root.items.push(new Pair(new Scalar(key), createNode(value, context)));
  }
  if (!hasStepsKey && draft.steps.length > 0) root.items.push(new Pair(new Scalar("steps"), stepsNode(draft)));
  doc.contents = root;
  if (base) {
    doc.commentBefore = base.doc.commentBefore;
    doc.comment = base.doc.comment;
  }
  return doc.toString({ lineWidth: 0 });
}

/** The YAML of some steps alone (a list), for the clipboard. */
export function stepsToYaml(values: readonly unknown[]): string {
  const doc = new Document();
  const seq = new YAMLSeq();
  values.forEach((value, i) => {
    const node = createNode(value, "step");
    node.spaceBefore = i > 0;
    seq.items.push(node);
  });
  doc.contents = seq;
  return doc.toString({ lineWidth: 0 });
}
