/**
 * A three-way merge of recipe YAML (docs/teams.md, "Saving a recipe someone else saved"): the
 * text the builder loaded (`base`), the person's edits (`mine`) and what someone saved in between
 * (`theirs`). Top-level fields merge field by field; `steps` merge as a list keyed by step name
 * (each step whole: added, removed, changed), keeping my order and placing their new steps after
 * the step they follow in theirs. Where both sides changed the same thing differently, mine is
 * kept and the conflict listed, for the person to decide.
 *
 * Hand-written because no maintained library merges YAML structurally; parsing and printing are
 * the `yaml` library's. Pure: the builder runs it in the browser, the tests in Node.
 */
import { parse, stringify } from "yaml";

export interface MergeConflict { path: string; message: string }
export interface MergeResult { yaml: string; conflicts: MergeConflict[] }

type Obj = Record<string, unknown>;
type Step = Obj & { name?: unknown };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);

function parseRecipe(text: string, which: string): Obj {
  const v = parse(text);
  if (!isObj(v)) throw new Error(`${which}: not a recipe (a YAML mapping)`);
  return v;
}

/** One value three ways: the side that changed wins; both changed alike, fine; differently, mine and a conflict. */
function pick(path: string, base: unknown, mine: unknown, theirs: unknown, conflicts: MergeConflict[]): unknown {
  if (same(mine, theirs) || same(theirs, base)) return mine;
  if (same(mine, base)) return theirs;
  conflicts.push({ path, message: `both changed ${path}; yours is kept` });
  return mine;
}

const stepKey = (s: unknown, i: number) => (isObj(s) && typeof s.name === "string" ? `name:${s.name}` : `index:${i}`);

function mergeSteps(base: unknown[], mine: unknown[], theirs: unknown[], conflicts: MergeConflict[]): unknown[] {
  const index = (list: unknown[]) => new Map(list.map((s, i) => [stepKey(s, i), s as Step]));
  const b = index(base), m = index(mine), t = index(theirs);
  const out: [string, unknown][] = [];
  for (const [key, mineStep] of m) {
    const label = `steps.${key.slice(key.indexOf(":") + 1)}`;
    const baseStep = b.get(key);
    const theirStep = t.get(key);
    if (!baseStep) {
      if (theirStep && !same(theirStep, mineStep)) conflicts.push({ path: label, message: `both added ${label} differently; yours is kept` });
      out.push([key, mineStep]);
    } else if (!theirStep) {
      // They removed it: gone, unless I changed it.
      if (!same(mineStep, baseStep)) {
        conflicts.push({ path: label, message: `they removed ${label}, which you changed; yours is kept` });
        out.push([key, mineStep]);
      }
    } else out.push([key, pick(label, baseStep, mineStep, theirStep, conflicts)]);
  }
  // Their additions, and steps I removed that they changed.
  const theirOrder = [...t.keys()];
  theirOrder.forEach((key, i) => {
    if (m.has(key)) return;
    const label = `steps.${key.slice(key.indexOf(":") + 1)}`;
    const baseStep = b.get(key);
    if (baseStep) {
      if (same(baseStep, t.get(key))) return; // I removed it; they left it alone
      conflicts.push({ path: label, message: `you removed ${label}, which they changed; theirs is kept` });
    }
    const before = theirOrder.slice(0, i).reverse().find((k) => out.some(([ok]) => ok === k));
    const at = before === undefined ? 0 : out.findIndex(([ok]) => ok === before) + 1;
    out.splice(at, 0, [key, t.get(key)]);
  });
  return out.map(([, s]) => s);
}

/** Merges `mine` and `theirs`, both edited from `base`. Throws when a text is not a YAML mapping. */
export function mergeRecipeYaml(base: string, mine: string, theirs: string): MergeResult {
  const b = parseRecipe(base, "the loaded recipe"), m = parseRecipe(mine, "your recipe"), t = parseRecipe(theirs, "their recipe");
  const conflicts: MergeConflict[] = [];
  const merged: Obj = {};
  const keys = [...Object.keys(m), ...Object.keys(t).filter((k) => !(k in m))];
  for (const key of keys) {
    if (key === "steps" && Array.isArray(m.steps ?? []) && Array.isArray(t.steps ?? []) && Array.isArray(b.steps ?? [])) {
      merged.steps = mergeSteps((b.steps ?? []) as unknown[], (m.steps ?? []) as unknown[], (t.steps ?? []) as unknown[], conflicts);
      continue;
    }
    const value = pick(key, b[key], m[key], t[key], conflicts);
    if (value !== undefined) merged[key] = value;
  }
  return { yaml: stringify(merged, { lineWidth: 0 }), conflicts };
}
