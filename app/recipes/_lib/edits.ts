/**
 * Every edit the builder makes to a recipe, as pure functions RecipeDraft → RecipeDraft. They copy
 * only the changed path (see draft.ts), never reorder keys that exist, and insert new keys where
 * the recipe format (or the tool's schema, for params) puts them, so a recipe built by clicking
 * reads like one written by hand.
 */
import { RECIPE_FIELDS, STEP_FIELDS, stepIdFromName } from "@/server/recipes/schema";
import { STEPS_SLOT, isRecord, newUid, stepName, type DraftStep, type RecipeDraft } from "./draft";

/** A path inside a step's params, e.g. ["position", "x"]. */
export type ParamPath = readonly string[];

/**
 * `record` with `key` set to `value` (removed when undefined). A new key goes before the first
 * existing key that `order` ranks after it, so canonical order is kept; unknown keys go last.
 */
export function withKey(record: Record<string, unknown>, key: string, value: unknown, order: readonly string[] = []): Record<string, unknown> {
  if (value === undefined) {
    if (!(key in record)) return record;
    const { [key]: _removed, ...rest } = record;
    return rest;
  }
  if (key in record) return record[key] === value ? record : { ...record, [key]: value };
  const rank = order.indexOf(key);
  const keys = Object.keys(record);
  const before = rank < 0 ? -1 : keys.findIndex((k) => order.indexOf(k) > rank);
  const out: Record<string, unknown> = {};
  keys.forEach((k, i) => {
    if (i === before) out[key] = value;
    out[k] = record[k];
  });
  if (before < 0) out[key] = value;
  return out;
}

/** Sets (or with undefined removes) a top-level field such as name, description or version. */
export function setField(draft: RecipeDraft, key: string, value: unknown): RecipeDraft {
  const fields = withKey(draft.fields, key, value, RECIPE_FIELDS);
  return fields === draft.fields ? draft : { ...draft, fields };
}

/** Sets the variables mapping as a whole (ordered entries); no entries removes the field. */
export function setVariables(draft: RecipeDraft, entries: readonly [string, unknown][]): RecipeDraft {
  return setField(draft, "variables", entries.length === 0 ? undefined : Object.fromEntries(entries));
}

function withSteps(draft: RecipeDraft, steps: DraftStep[]): RecipeDraft {
  const fields = "steps" in draft.fields || steps.length === 0 ? draft.fields : withKey(draft.fields, "steps", STEPS_SLOT, RECIPE_FIELDS);
  // A non-list `steps:` is replaced by the list as soon as there is a step to hold.
  const fixed = steps.length > 0 && fields.steps !== STEPS_SLOT ? { ...fields, steps: STEPS_SLOT } : fields;
  return { ...draft, fields: fixed, steps };
}

/** Replaces one step's value through `update` (no-op when the uid is unknown). */
export function updateStep(draft: RecipeDraft, uid: string, update: (value: Record<string, unknown>) => Record<string, unknown>): RecipeDraft {
  const index = draft.steps.findIndex((s) => s.uid === uid);
  if (index < 0) return draft;
  const current = draft.steps[index];
  const next = update(isRecord(current.value) ? current.value : {});
  if (next === current.value) return draft;
  const steps = draft.steps.slice();
  steps[index] = { uid, value: next };
  return { ...draft, steps };
}

/** Sets (or removes) one field of a step: name, id, tool, condition, on_error. */
export function setStepField(draft: RecipeDraft, uid: string, key: string, value: unknown): RecipeDraft {
  return updateStep(draft, uid, (step) => withKey(step, key, value, STEP_FIELDS));
}

function setIn(record: Record<string, unknown>, path: ParamPath, value: unknown, orders: readonly (readonly string[])[]): Record<string, unknown> {
  const [key, ...rest] = path;
  if (rest.length === 0) return withKey(record, key, value, orders[0]);
  const inner = isRecord(record[key]) ? (record[key] as Record<string, unknown>) : {};
  const updated = setIn(inner, rest, value, orders.slice(1));
  // Clearing the last component of a vector removes the vector rather than leave `{}` behind.
  return withKey(record, key, Object.keys(updated).length === 0 ? undefined : updated, orders[0]);
}

/**
 * Sets (or removes) a parameter at `path`. `orders[i]` lists the keys of the mapping at depth i
 * in schema order, for placing new keys; a params mapping left empty is removed.
 */
export function setParam(draft: RecipeDraft, uid: string, path: ParamPath, value: unknown, orders: readonly (readonly string[])[] = []): RecipeDraft {
  return updateStep(draft, uid, (step) => {
    const params = isRecord(step.params) ? step.params : {};
    const next = setIn(params, path, value, orders);
    if (next === params && "params" in step) return step;
    return withKey(step, "params", Object.keys(next).length === 0 ? undefined : next, STEP_FIELDS);
  });
}

/** Changes a step's tool, keeping the params the new tool also has. */
export function changeTool(draft: RecipeDraft, uid: string, tool: string, toolParams: readonly string[]): RecipeDraft {
  return updateStep(draft, uid, (step) => {
    const withTool = withKey(step, "tool", tool, STEP_FIELDS);
    if (!isRecord(step.params)) return withTool;
    const kept = Object.fromEntries(Object.entries(step.params).filter(([k]) => toolParams.includes(k)));
    return withKey(withTool, "params", Object.keys(kept).length === 0 ? undefined : kept, STEP_FIELDS);
  });
}

/** The id of every step: explicit, or derived from its name. */
function stepIds(draft: RecipeDraft): Set<string> {
  return new Set(draft.steps.map((s) => stepIdOf(s.value)));
}

/** `wanted`, or `wanted 2`, `wanted 3`... whichever no step has (by name and by derived id). */
export function uniqueStepName(draft: RecipeDraft, wanted: string): string {
  const names = new Set(draft.steps.map((s) => stepName(s.value)));
  const ids = stepIds(draft);
  const free = (name: string) => !names.has(name) && !ids.has(stepIdFromName(name));
  if (free(wanted)) return wanted;
  const stem = wanted.replace(/\s+\d+$/, "");
  for (let n = 2; ; n++) if (free(`${stem} ${n}`)) return `${stem} ${n}`;
}

/** "create_gameobject" → "Create gameobject": the default name of a new step. */
export function defaultStepName(tool: string): string {
  const words = tool.replace(/_/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Inserts steps at `index`; names (and explicit ids) are made unique. Returns the new uids. */
export function insertSteps(draft: RecipeDraft, index: number, values: readonly unknown[]): { draft: RecipeDraft; uids: string[] } {
  let current = draft;
  const added: DraftStep[] = [];
  for (const value of values) {
    let step = value;
    if (isRecord(value)) {
      const name = uniqueStepName(current, stepName(value) || defaultStepName(String(value.tool ?? "step")));
      step = withKey(value, "name", name, STEP_FIELDS);
      // An explicit id that another step already has is replaced by the (free) id of the name.
      if (typeof value.id === "string" && stepIds(current).has(value.id)) {
        step = withKey(step as Record<string, unknown>, "id", stepIdFromName(name), STEP_FIELDS);
      }
    }
    const entry = { uid: newUid(), value: step };
    added.push(entry);
    current = { ...current, steps: [...current.steps, entry] };
  }
  const at = Math.max(0, Math.min(index, draft.steps.length));
  const steps = [...draft.steps.slice(0, at), ...added, ...draft.steps.slice(at)];
  return { draft: withSteps(draft, steps), uids: added.map((s) => s.uid) };
}

/** Adds a new step calling `tool` at `index`, named after the tool. */
export function addStep(draft: RecipeDraft, index: number, tool: string): { draft: RecipeDraft; uid: string } {
  const { draft: next, uids } = insertSteps(draft, index, [{ name: defaultStepName(tool), tool }]);
  return { draft: next, uid: uids[0] };
}

/** Removes the steps with these uids. */
export function removeSteps(draft: RecipeDraft, uids: readonly string[]): RecipeDraft {
  const drop = new Set(uids);
  const steps = draft.steps.filter((s) => !drop.has(s.uid));
  return steps.length === draft.steps.length ? draft : withSteps(draft, steps);
}

/** Copies the steps with these uids right after the last of them. Returns the copies' uids. */
export function duplicateSteps(draft: RecipeDraft, uids: readonly string[]): { draft: RecipeDraft; uids: string[] } {
  const chosen = draft.steps.filter((s) => uids.includes(s.uid));
  if (chosen.length === 0) return { draft, uids: [] };
  const last = Math.max(...chosen.map((s) => draft.steps.indexOf(s)));
  return insertSteps(draft, last + 1, chosen.map((s) => s.value));
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function replaceIn(value: unknown, rewrite: (s: string) => string): unknown {
  if (typeof value === "string") return rewrite(value);
  if (Array.isArray(value)) {
    const next = value.map((v) => replaceIn(v, rewrite));
    return next.some((v, i) => v !== value[i]) ? next : value;
  }
  if (isRecord(value)) {
    let changed = false;
    const next: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      next[k] = replaceIn(v, rewrite);
      changed ||= next[k] !== v;
    }
    return changed ? next : value;
  }
  return value;
}

/**
 * After a step's id changed from `from` to `to` (renaming a step renames its derived id), points
 * every reference to it there: `steps.<from>` inside `{{ }}` placeholders and in conditions
 * (also `steps["<from>"]`). Returns how many strings changed.
 */
export function renameReferences(draft: RecipeDraft, from: string, to: string): { draft: RecipeDraft; count: number } {
  if (!from || !to || from === to) return { draft, count: 0 };
  const dotted = new RegExp(`(^|[^\\w.])steps\\.${escapeRegExp(from)}(?![\\w])`, "g");
  const quoted = new RegExp(`steps\\[(["'])${escapeRegExp(from)}\\1\\]`, "g");
  const inExpression = (s: string) => s.replace(dotted, `$1steps.${to}`).replace(quoted, `steps[$1${to}$1]`);
  let count = 0;
  const counted = (before: string, after: string) => {
    if (after !== before) count++;
    return after;
  };
  const placeholders = (s: string) => counted(s, s.replace(/\{\{([^}]*)\}\}/g, (_m, inner: string) => `{{${inExpression(inner)}}}`));
  const steps = draft.steps.map((step) => {
    if (!isRecord(step.value)) return step;
    let value: Record<string, unknown> = step.value;
    const params = replaceIn(value.params, placeholders);
    if (params !== value.params) value = { ...value, params };
    if (typeof value.condition === "string") {
      const condition = counted(value.condition, inExpression(value.condition));
      if (condition !== value.condition) value = { ...value, condition };
    }
    return value === step.value ? step : { uid: step.uid, value };
  });
  return count === 0 ? { draft, count } : { draft: { ...draft, steps }, count };
}

/** The id a step goes by: its explicit id, or the one derived from its name. */
export function stepIdOf(value: unknown): string {
  return isRecord(value) && typeof value.id === "string" ? value.id : stepIdFromName(stepName(value));
}

/** Moves a step to `index` (clamped). */
export function moveStepTo(draft: RecipeDraft, uid: string, index: number): RecipeDraft {
  const from = draft.steps.findIndex((s) => s.uid === uid);
  const to = Math.max(0, Math.min(index, draft.steps.length - 1));
  if (from < 0 || from === to) return draft;
  const steps = draft.steps.slice();
  const [step] = steps.splice(from, 1);
  steps.splice(to, 0, step);
  return { ...draft, steps };
}

/** Moves the selected steps one place up (-1) or down (+1) as a block; no-op at the ends. */
export function moveSteps(draft: RecipeDraft, uids: readonly string[], delta: -1 | 1): RecipeDraft {
  const picked = new Set(uids);
  const indexes = draft.steps.map((s, i) => (picked.has(s.uid) ? i : -1)).filter((i) => i >= 0);
  if (indexes.length === 0) return draft;
  if ((delta < 0 && indexes[0] === 0) || (delta > 0 && indexes[indexes.length - 1] === draft.steps.length - 1)) return draft;
  const steps = draft.steps.slice();
  const order = delta < 0 ? indexes : [...indexes].reverse();
  for (const i of order) [steps[i], steps[i + delta]] = [steps[i + delta], steps[i]];
  return { ...draft, steps };
}
