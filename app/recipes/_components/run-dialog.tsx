"use client";
/**
 * Run with variable overrides: one input per variable, prefilled with its default (or with the
 * values of an earlier run, from the run history) and typed like it (a number stays a number).
 * Only values that differ from the default are sent. Runs use the saved file, so unsaved changes
 * are saved first ("Save and run").
 */
import { useState } from "react";
import { convertVariable, variableType } from "../_lib/summary";
import { Dialog } from "./dialog";

/** Props of RunDialog. */
export interface RunDialogProps {
  name: string;
  variables: [string, unknown][];
  dirty: boolean;
  errors: number;
  /** Values to start from instead of the defaults (an earlier run's), and what they are. */
  prefill?: { values: Record<string, unknown>; label: string };
  onRun(overrides: Record<string, string | number | boolean>): void;
  onClose(): void;
}

/** The run dialog. */
export function RunDialog({ name, variables, dirty, errors, prefill, onRun, onClose }: RunDialogProps) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(variables.map(([k, d]) => {
      const v = prefill && k in prefill.values ? prefill.values[k] : d;
      return [k, typeof d === "boolean" ? v === true : String(v ?? "")];
    })),
  );
  const overrides = () => {
    const out: Record<string, string | number | boolean> = {};
    for (const [key, def] of variables) {
      const typed = convertVariable(values[key], variableType(def));
      if (typed !== def) out[key] = typed;
    }
    return out;
  };
  return (
    <Dialog title={`Run ${name}`} onClose={onClose} className="run-dialog">
      {prefill && <p className="muted">Starting from {prefill.label}.</p>}
      {variables.length === 0 && <p className="muted">This recipe has no variables.</p>}
      {variables.map(([key, def]) => (
        <div className="field" key={key}>
          <div className="field-label"><label htmlFor={`run-${key}`}><code>{key}</code></label><span className="muted">default {JSON.stringify(def)}</span></div>
          {typeof def === "boolean" ? (
            <input id={`run-${key}`} type="checkbox" checked={values[key] === true} onChange={(e) => setValues({ ...values, [key]: e.target.checked })} />
          ) : (
            <input id={`run-${key}`} type="text" inputMode={typeof def === "number" ? "decimal" : undefined} value={String(values[key] ?? "")} onChange={(e) => setValues({ ...values, [key]: e.target.value })} />
          )}
        </div>
      ))}
      {errors > 0 && <p className="field-error">The recipe has {errors} problem{errors === 1 ? "" : "s"}; Kiln will refuse to run it until they are fixed.</p>}
      {dirty && <p className="muted">Runs use the saved recipe: your changes will be saved first.</p>}
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>Cancel</button>
        <button type="button" className="primary" onClick={() => onRun(overrides())} autoFocus data-testid="run-confirm">{dirty ? "Save and run" : "Run"}</button>
      </div>
    </Dialog>
  );
}
