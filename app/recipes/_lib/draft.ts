/**
 * The builder's model of a recipe: a `RecipeDraft` holds the recipe exactly as authored (every
 * key, in its order, including keys the schema would reject) so that YAML → canvas → YAML keeps
 * meaning and field order. Invariants:
 * - drafts are immutable: an edit makes new objects along the changed path only, so "unchanged"
 *   is an identity check (`step.value === base.steps.get(uid).value`);
 * - every step has a `uid` that lives as long as the step (React keys, node ids, selection, run
 *   status); uids are never written to YAML;
 * - a draft parsed from text remembers that text and its YAML nodes (`base`), so serialize.ts can
 *   write unchanged parts back with their comments and style.
 */
import { LineCounter, isMap, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLSeq } from "yaml";

/** Stands in `fields.steps` for the step list, which lives in `RecipeDraft.steps`. */
export const STEPS_SLOT: unique symbol = Symbol("steps");

/** One step: its mapping as authored (usually an object; anything else is kept as written). */
export interface DraftStep {
  uid: string;
  value: unknown;
}

/** The parsed text a draft came from, for writing unchanged parts back verbatim. */
export interface YamlBase {
  text: string;
  doc: Document;
  /** Top-level values as parsed (identity-compared with the draft's). */
  fields: Record<string, unknown>;
  /** Top-level pairs by key, with their comments. */
  pairs: Map<string, Pair>;
  /** The step sequence node, when `steps` is a list. */
  stepsNode?: YAMLSeq;
  /** Each parsed step's node and value, by uid. */
  steps: Map<string, { node: Node; value: unknown }>;
}

/** A recipe being edited. */
export interface RecipeDraft {
  /** Top-level fields in authored order; `steps` holds STEPS_SLOT when it is a list. */
  fields: Record<string, unknown>;
  steps: DraftStep[];
  base?: YamlBase;
}

/** Where YAML text is broken, 1-based. */
export interface YamlProblem {
  line: number;
  column: number;
  message: string;
}

let uidCounter = 0;

/** A fresh step uid, unique in this page. */
export function newUid(): string {
  uidCounter += 1;
  return `s${uidCounter}`;
}

/** True for a plain mapping (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The empty recipe of /recipes/new: name and description, nothing else. */
export function emptyDraft(): RecipeDraft {
  return { fields: { name: "", description: "" }, steps: [] };
}

/**
 * Gives each parsed step the uid of the step it most likely is in the previous draft: the same
 * name first (in order), then the same position, so a YAML edit keeps selection and run status.
 */
export function matchUids(previous: readonly DraftStep[], values: readonly unknown[]): string[] {
  const used = new Set<string>();
  const byName = new Map<string, string[]>();
  for (const step of previous) {
    const name = stepName(step.value);
    byName.set(name, [...(byName.get(name) ?? []), step.uid]);
  }
  const byNameFirst = values.map((value) => {
    const uid = byName.get(stepName(value))?.find((u) => !used.has(u));
    if (uid) used.add(uid);
    return uid;
  });
  return byNameFirst.map((uid, index) => {
    if (uid) return uid;
    const same = previous[index]?.uid;
    if (same === undefined || used.has(same)) return newUid();
    used.add(same);
    return same;
  });
}

/** The display name of a step value, "" when it has none. */
export function stepName(value: unknown): string {
  return isRecord(value) && typeof value.name === "string" ? value.name : "";
}

const MAX_TEXT = 1024 * 1024;

/**
 * Parses recipe YAML into a draft. Never throws: broken YAML gives `problem` and no draft (the
 * canvas keeps the last good one). `previous` lends its uids to matching steps.
 * @example
 * const { draft } = draftFromYaml(text);
 */
export function draftFromYaml(text: string, previous?: RecipeDraft): { draft?: RecipeDraft; problem?: YamlProblem } {
  if (text.length > MAX_TEXT) return { problem: { line: 1, column: 1, message: "the recipe is larger than 1 MiB" } };
  if (text.trim() === "") return { draft: { ...emptyDraft(), fields: {} } };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const [error] = doc.errors;
  if (error) {
    const message = error.code === "DUPLICATE_KEY" ? "duplicate key: each key may appear once in a mapping" : error.message.split("\n")[0];
    return { problem: { ...at(error.pos[0]), message } };
  }
  if (!isMap(doc.contents)) {
    return { problem: { line: 1, column: 1, message: "a recipe is a YAML mapping with name, description and steps" } };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { problem: { line: 1, column: 1, message: (e as Error).message } };
  }
  const root = value as Record<string, unknown>;
  const pairs = new Map<string, Pair>();
  for (const pair of doc.contents.items) {
    const key = (pair.key as { value?: unknown } | null)?.value;
    if (typeof key === "string" || typeof key === "number") pairs.set(String(key), pair as Pair);
  }
  const fields: Record<string, unknown> = {};
  const baseFields: Record<string, unknown> = {};
  let steps: DraftStep[] = [];
  const baseSteps = new Map<string, { node: Node; value: unknown }>();
  const stepsPair = pairs.get("steps");
  const stepsNode = stepsPair && isSeq(stepsPair.value) ? (stepsPair.value as YAMLSeq) : undefined;
  for (const key of Object.keys(root)) {
    if (key === "steps" && Array.isArray(root.steps) && stepsNode) {
      fields.steps = STEPS_SLOT;
      baseFields.steps = STEPS_SLOT;
      const uids = matchUids(previous?.steps ?? [], root.steps);
      steps = root.steps.map((stepValue, i) => ({ uid: uids[i], value: stepValue }));
      steps.forEach((step, i) => baseSteps.set(step.uid, { node: stepsNode.items[i] as Node, value: step.value }));
    } else {
      fields[key] = root[key];
      baseFields[key] = root[key];
    }
  }
  const base: YamlBase = { text, doc, fields: baseFields, pairs, stepsNode, steps: baseSteps };
  return { draft: { fields, steps, base } };
}

/** The recipe name as typed ("" when missing or not text). */
export function recipeName(draft: RecipeDraft): string {
  return typeof draft.fields.name === "string" ? draft.fields.name : "";
}

/** The variables mapping (empty when missing or malformed). */
export function variablesOf(draft: RecipeDraft): Record<string, unknown> {
  return isRecord(draft.fields.variables) ? draft.fields.variables : {};
}
