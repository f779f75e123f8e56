"use client";
/** The builder's top bar: back to the list, the recipe's name and state, and every command. */
import Link from "next/link";
import type { NodeRun } from "../_lib/run-progress";
import { runCounts } from "../_lib/run-progress";
import type { RunPhase } from "./use-run";
import { useCanEdit } from "../../_lib/viewer";

/** Props of Toolbar. */
export interface ToolbarProps {
  name: string;
  dirty: boolean;
  canUndo: boolean;
  canRedo: boolean;
  errors?: number;
  validating: boolean;
  saving: boolean;
  yamlOpen: boolean;
  run: { phase: RunPhase; runs: ReadonlyMap<string, NodeRun>; message?: string };
  on: {
    undo(): void; redo(): void; add(): void; autoLayout(): void; toggleYaml(): void;
    validate(): void; save(): void; run(): void; help(): void;
    /** Phones: show or hide the side panel, a sheet under the canvas. */
    togglePanel?(): void;
  };
  panelOpen?: boolean;
}

function RunStatus({ run }: { run: ToolbarProps["run"] }) {
  if (run.phase === "idle") return null;
  if (run.phase === "error") return <span className="run-status run-failed" title={run.message}>run refused</span>;
  const counts = runCounts(run.runs);
  const done = counts.succeeded + counts.failed + counts.skipped;
  return (
    <span className={`run-status run-${run.phase}`} data-testid="run-status" data-phase={run.phase}>
      {run.phase === "running" ? `running ${done}/${run.runs.size}` : run.phase}
      {counts.failed > 0 && ` · ${counts.failed} failed`}
      {counts.skipped > 0 && ` · ${counts.skipped} skipped`}
    </span>
  );
}

/** The toolbar. */
export function Toolbar({ name, dirty, canUndo, canRedo, errors, validating, saving, yamlOpen, run, on, panelOpen }: ToolbarProps) {
  const canEdit = useCanEdit();
  return (
    <header className="toolbar" aria-label="Recipe builder">
      <Link href="/recipes" prefetch={false} className="toolbar-back" title="All recipes">← Recipes</Link>
      {/* The page's heading: the recipe's name. */}
      <h1 className="toolbar-title" data-testid="recipe-title">
        {name || <em>new recipe</em>}
        {dirty && <span className="dirty-dot" title="Unsaved changes" aria-label="unsaved changes">●</span>}
      </h1>
      <span className={`validity ${errors === undefined ? "" : errors === 0 ? "is-valid" : "is-invalid"}`} data-testid="validity">
        {validating ? "checking…" : errors === undefined ? "" : errors === 0 ? "✓ valid" : `${errors} problem${errors === 1 ? "" : "s"}`}
      </span>
      <RunStatus run={run} />
      <span className="toolbar-spacer" />
      <div className="toolbar-group">
        <button type="button" onClick={on.undo} disabled={!canUndo} title="Undo (Ctrl+Z)" aria-label="Undo">↶</button>
        <button type="button" onClick={on.redo} disabled={!canRedo} title="Redo (Ctrl+Shift+Z)" aria-label="Redo">↷</button>
      </div>
      {on.togglePanel && (
        <div className="toolbar-group">
          <button type="button" onClick={on.togglePanel} aria-expanded={panelOpen} aria-controls="inspector" data-testid="toggle-panel">{panelOpen ? "Panel ▾" : "Panel ▴"}</button>
        </div>
      )}
      <div className="toolbar-group">
        <button type="button" onClick={on.add} title="Add a step after the selection (Shift+A)">+ Step</button>
        <button type="button" onClick={on.autoLayout} title="Auto-layout and fit (Shift+L)">Auto-layout</button>
        <button type="button" onClick={on.toggleYaml} aria-pressed={yamlOpen} title="Show the YAML">YAML</button>
      </div>
      <div className="toolbar-group">
        <button type="button" onClick={on.validate}>Validate</button>
        <button type="button" onClick={on.save} disabled={saving || !canEdit} title="Save (Ctrl+S)">{saving ? "Saving…" : "Save"}</button>
        <button type="button" className="primary" onClick={on.run} disabled={run.phase === "running" || !canEdit} title="Run (Ctrl+Enter)">▶ Run</button>
        <button type="button" onClick={on.help} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">?</button>
      </div>
    </header>
  );
}
