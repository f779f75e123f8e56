"use client";
/** The builder's dialogs: tool picker, shortcuts, run, and the question before a save. */
import { isRecord, recipeName, type RecipeDraft } from "../_lib/draft";
import type { ToolInfo } from "../_lib/tools";
import { ConfirmDialog } from "./dialog";
import { RunDialog } from "./run-dialog";
import { ShortcutsHelp } from "./shortcuts-help";
import { ToolPicker } from "./tool-picker";
import type { SaveQuestion } from "./use-save";

/** What the tool picker is open for. */
export type PickerState = { mode: "add"; index: number } | { mode: "change"; uid: string } | undefined;

/** Props of BuilderDialogs. */
export interface BuilderDialogsProps {
  tools: ToolInfo[];
  draft: RecipeDraft;
  picker: PickerState;
  closePicker(): void;
  pick(picker: Exclude<PickerState, undefined>, tool: string): void;
  help: boolean;
  closeHelp(): void;
  runOpen: boolean;
  /** An earlier run's values to start the run dialog from. */
  runPrefill?: { values: Record<string, unknown>; label: string };
  closeRun(): void;
  startRun(overrides: Record<string, string | number | boolean>): void;
  dirty: boolean;
  errors: number;
  variables: [string, unknown][];
  question?: SaveQuestion;
  cancelSave(): void;
}

/** Whichever dialogs are open. */
export function BuilderDialogs(props: BuilderDialogsProps) {
  const { picker, draft } = props;
  const changing = picker?.mode === "change" ? draft.steps.find((s) => s.uid === picker.uid) : undefined;
  const current = changing && isRecord(changing.value) && typeof changing.value.tool === "string" ? changing.value.tool : undefined;
  return (
    <>
      {picker && (
        <ToolPicker
          tools={props.tools}
          title={picker.mode === "add" ? `Add a step${picker.index < draft.steps.length ? ` before step ${picker.index + 1}` : ""}` : "Change the tool"}
          current={current}
          onPick={(tool) => {
            props.closePicker();
            props.pick(picker, tool);
          }}
          onClose={props.closePicker}
        />
      )}
      {props.help && <ShortcutsHelp onClose={props.closeHelp} />}
      {props.runOpen && (
        <RunDialog name={recipeName(draft)} variables={props.variables} dirty={props.dirty} errors={props.errors} prefill={props.runPrefill} onRun={props.startRun} onClose={props.closeRun} />
      )}
      {props.question && (
        <ConfirmDialog title={props.question.title ?? "Save anyway?"} confirm={props.question.confirm ?? "Save"} onConfirm={props.question.proceed} onClose={props.cancelSave}>
          {props.question.reasons.map((reason, i) => <p key={i}>{reason}</p>)}
          {props.question.choices?.length ? (
            <p className="dialog-choices">{props.question.choices.map((c) => <button key={c.label} type="button" onClick={c.run}>{c.label}</button>)}</p>
          ) : null}
        </ConfirmDialog>
      )}
    </>
  );
}
