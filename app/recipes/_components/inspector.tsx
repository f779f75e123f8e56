"use client";
/**
 * The side panel: the recipe when nothing (or the start node) is selected, the step when one is,
 * bulk actions when several are. It also renders the list of `{{ … }}` suggestions every text
 * box offers: the variables, and the earlier steps' results.
 */
import type { ReactNode } from "react";
import { stepIdFromName } from "@/server/recipes/schema";
import { isRecord, stepName, type RecipeDraft } from "../_lib/draft";
import { START_ID, variableEntries } from "../_lib/graph";
import type { IssueIndex } from "../_lib/issues";
import type { NodeRun } from "../_lib/run-progress";
import { useTools } from "./builder-context";
import { RecipeInspector } from "./recipe-inspector";
import { PLACEHOLDER_LIST_ID } from "./scalar-fields";
import { StepInspector } from "./step-inspector";

/** Step commands the panel offers. */
export interface StepCommands {
  remove(uids: readonly string[]): void;
  duplicate(uids: readonly string[]): void;
  move(uids: readonly string[], delta: -1 | 1): void;
  pickTool(uid: string): void;
  renameReferences(uid: string, from: string, to: string): void;
}

/** Props of Inspector. */
export interface InspectorProps {
  draft: RecipeDraft;
  selection: readonly string[];
  issues: IssueIndex;
  runs: ReadonlyMap<string, NodeRun>;
  edit(change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string): void;
  commands: StepCommands;
  /** Shown under the recipe's own fields (the run history). */
  recipeExtra?: ReactNode;
  /** Phones: hide the panel (a sheet under the canvas). */
  onHide?(): void;
}

const idOf = (value: unknown) => (isRecord(value) && typeof value.id === "string" ? value.id : stepIdFromName(stepName(value)));

/** The side panel. */
export function Inspector({ draft, selection, issues, runs, edit, commands, recipeExtra, onHide }: InspectorProps) {
  const tools = useTools();
  const steps = selection.filter((id) => id !== START_ID);
  const variables = variableEntries(draft);
  const index = steps.length === 1 ? draft.steps.findIndex((s) => s.uid === steps[0]) : -1;
  const earlier = index >= 0 ? draft.steps.slice(0, index).map((s) => idOf(s.value)).filter(Boolean) : [];
  const suggestions = [...variables.map(([name]) => `{{ ${name} }}`), ...earlier.map((id) => `{{ steps.${id}.result }}`)];
  const hint = `Reads vars.<name>${variables.length ? ` (${variables.map(([n]) => n).slice(0, 4).join(", ")})` : ""} and steps.<id>.status / .result / .error of earlier steps${earlier.length ? ` (${earlier.slice(-3).join(", ")})` : ""}.`;
  let content;
  if (steps.length === 0) {
    content = <><RecipeInspector fields={draft.fields} variables={variables} issues={issues.recipe} edit={edit} />{recipeExtra}</>;
  } else if (steps.length === 1 && index >= 0) {
    const step = draft.steps[index];
    const tool = isRecord(step.value) && typeof step.value.tool === "string" ? tools.get(step.value.tool) : undefined;
    content = (
      <StepInspector
        key={step.uid}
        uid={step.uid}
        index={index}
        count={draft.steps.length}
        value={step.value}
        tool={tool}
        issues={issues.steps.get(step.uid)}
        run={runs.get(step.uid)}
        conditionHint={hint}
        edit={edit}
        onPickTool={() => commands.pickTool(step.uid)}
        onDelete={() => commands.remove([step.uid])}
        onDuplicate={() => commands.duplicate([step.uid])}
        onMove={(delta) => commands.move([step.uid], delta)}
        onIdChanged={(from, to) => commands.renameReferences(step.uid, from, to)}
      />
    );
  } else {
    content = (
      <section className="inspector-section" aria-label="Selected steps">
        <header className="inspector-head"><h2>{steps.length} steps selected</h2></header>
        <div className="inspector-actions wrap">
          <button type="button" onClick={() => commands.move(steps, -1)}>Move up</button>
          <button type="button" onClick={() => commands.move(steps, 1)}>Move down</button>
          <button type="button" onClick={() => commands.duplicate(steps)}>Duplicate</button>
          <button type="button" className="danger" onClick={() => commands.remove(steps)}>Delete</button>
        </div>
        <p className="muted">Ctrl+C copies them as YAML; Ctrl+V pastes them after the selection.</p>
      </section>
    );
  }
  return (
    <aside className="inspector" aria-label="Inspector" id="inspector">
      {onHide && <button type="button" className="sheet-hide" onClick={onHide} aria-label="Hide the panel">Hide panel ▾</button>}
      {content}
      <datalist id={PLACEHOLDER_LIST_ID}>
        {suggestions.map((s) => <option key={s} value={s} />)}
      </datalist>
    </aside>
  );
}
