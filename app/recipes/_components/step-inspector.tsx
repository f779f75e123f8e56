"use client";
/**
 * The side panel for one step: name, tool (through the picker), id, the params form, condition,
 * on_error, the step's problems and its last run. Every change is an edit of the draft, typed
 * changes to one field merging into one undo step.
 */
import { useRef } from "react";
import { STEP_FIELDS, stepIdFromName } from "@/server/recipes/schema";
import { isRecord, type RecipeDraft } from "../_lib/draft";
import { setStepField, stepIdOf } from "../_lib/edits";
import { fieldIssues, stepField, type Issue } from "../_lib/issues";
import type { NodeRun } from "../_lib/run-progress";
import type { ToolInfo } from "../_lib/tools";
import { ConditionField } from "./condition-field";
import { FieldEditor } from "./field-editor";
import { ParamForm } from "./param-form";
import { RunOutput } from "./run-output";
import { TextField } from "./scalar-fields";

/** Props of StepInspector. */
export interface StepInspectorProps {
  uid: string;
  index: number;
  count: number;
  value: unknown;
  tool?: ToolInfo;
  issues?: Issue[];
  run?: NodeRun;
  conditionHint: string;
  edit(change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string): void;
  onPickTool(): void;
  onDelete(): void;
  onDuplicate(): void;
  onMove(delta: -1 | 1): void;
  /** The step's id changed from `from` to `to` (by renaming it): update references to it. */
  onIdChanged(from: string, to: string): void;
}

const asText = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** The inspector of a selected step. */
export function StepInspector(props: StepInspectorProps) {
  const { uid, index, count, value, tool, issues, run, edit } = props;
  const step = isRecord(value) ? value : {};
  const set = (key: string, coalesce = true) => (v: unknown) => edit((d) => setStepField(d, uid, key, v), coalesce ? `step:${uid}:${key}` : undefined);
  const messages = (field: string) => fieldIssues(issues, field).map((i) => i.message);
  const shown = new Set(["name", "id", "tool", "params", "condition", "on_error"]);
  const general = (issues ?? []).filter((i) => !shown.has(stepField(i).split(".")[0]));
  const extra = Object.keys(step).filter((k) => !STEP_FIELDS.includes(k));
  const text = { key: "", label: "", kind: "string" as const, required: true };
  // The id when editing of the name or id began; references follow it once editing ends.
  const idAtFocus = useRef<string | undefined>(undefined);
  const latest = useRef(value);
  latest.current = value;
  const tracking = {
    onFocus: () => (idAtFocus.current ??= stepIdOf(latest.current)),
    onBlur: () => {
      const from = idAtFocus.current;
      idAtFocus.current = undefined;
      // After the change that the blur may still carry has rendered.
      setTimeout(() => {
        const to = stepIdOf(latest.current);
        if (from && to && from !== to) props.onIdChanged(from, to);
      }, 0);
    },
  };
  return (
    <section className="inspector-section" aria-label={`Step ${index + 1}`}>
      <header className="inspector-head">
        <h2>Step {index + 1} <span className="muted">of {count}</span></h2>
        <div className="inspector-actions">
          <button type="button" onClick={() => props.onMove(-1)} disabled={index === 0} title="Move up (Alt+↑)" aria-label="Move step up">↑</button>
          <button type="button" onClick={() => props.onMove(1)} disabled={index === count - 1} title="Move down (Alt+↓)" aria-label="Move step down">↓</button>
          <button type="button" onClick={props.onDuplicate} title="Duplicate (Ctrl+D)">Duplicate</button>
          <button type="button" className="danger" onClick={props.onDelete} title="Delete (Delete)">Delete</button>
        </div>
      </header>
      {run && <RunOutput run={run} />}
      <div className="field">
        <div className="field-label"><label htmlFor={`s-${uid}-name`}>Name <span className="required"> *</span></label></div>
        <span {...tracking}><TextField spec={text} id={`s-${uid}-name`} value={step.name} onChange={set("name")} /></span>
        {messages("name").map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
      </div>
      <div className="field">
        <div className="field-label"><label htmlFor={`s-${uid}-tool`}>Tool</label></div>
        <button type="button" id={`s-${uid}-tool`} className="tool-button" onClick={props.onPickTool} data-testid="tool-button">
          <code>{asText(step.tool) || "choose a tool"}</code>
          <span aria-hidden>▾</span>
        </button>
        {tool && <div className="field-help">{tool.description}</div>}
        {messages("tool").map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
      </div>
      <div className="field">
        <div className="field-label"><label htmlFor={`s-${uid}-id`}>Id</label></div>
        <span {...tracking}><TextField spec={{ ...text, required: false }} id={`s-${uid}-id`} value={step.id} onChange={set("id")} /></span>
        <div className="field-help">Later steps read this step as <code>steps.{asText(step.id) || stepIdFromName(asText(step.name)) || "…"}</code>; leave empty to derive it from the name.</div>
        {messages("id").map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
      </div>
      <h3 className="inspector-subhead">Parameters</h3>
      <ParamForm uid={uid} tool={tool} params={step.params} issues={issues} edit={edit} />
      <h3 className="inspector-subhead">Flow</h3>
      <ConditionField id={`s-${uid}-condition`} value={step.condition} onChange={set("condition")} errors={messages("condition")} hint={props.conditionHint} />
      <div className="field">
        <div className="field-label"><label htmlFor={`s-${uid}-on-error`}>On error</label></div>
        <select id={`s-${uid}-on-error`} value={asText(step.on_error) || "stop"} onChange={(e) => set("on_error", false)(e.target.value === "stop" && step.on_error === undefined ? undefined : e.target.value)}>
          <option value="stop">stop the run{step.on_error === undefined ? " (default)" : ""}</option>
          <option value="continue">continue with the next step</option>
        </select>
        {messages("on_error").map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
      </div>
      {extra.map((key) => (
        <div key={key} className="unknown-param">
          <FieldEditor spec={{ key, label: `${key} (not a step field)`, kind: "yaml", required: false }} id={`s-${uid}-x-${key}`} value={step[key]} onChange={set(key)} errors={messages(key)} />
          <button type="button" className="link-button" onClick={() => set(key, false)(undefined)}>Remove {key}</button>
        </div>
      ))}
      {general.length > 0 && (
        <ul className="issue-list">
          {general.map((issue, i) => <li key={i} className="field-error">{issue.message}</li>)}
        </ul>
      )}
    </section>
  );
}
