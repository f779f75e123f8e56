"use client";
/**
 * The builder for one recipe: toolbar, canvas, side panel and YAML panel around one editing
 * state (use-recipe-editor), with live validation, save, run and the keyboard shortcuts.
 */
import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useLeaveGuard } from "@/app/_lib/leave-guard";
import { recipeName, type RecipeDraft } from "../_lib/draft";
import { START_ID, variableEntries } from "../_lib/graph";
import type { SaveResult, Validation } from "../_lib/kiln-types";
import type { ToolInfo } from "../_lib/tools";
import { ActionsContext, ToolsContext, type BuilderActions } from "./builder-context";
import { BuilderDialogs, type PickerState } from "./builder-dialogs";
import { Inspector } from "./inspector";
import { RecipeCanvas } from "./recipe-canvas";
import { Toasts, useToasts } from "./toasts";
import { Toolbar } from "./toolbar";
import { useDraftSnapshot } from "./use-draft-snapshot";
import { useRecipeEditor } from "./use-recipe-editor";
import { useRun } from "./use-run";
import { useSave, type RecipeOrigin } from "./use-save";
import { RecipeCollab } from "./recipe-collab";
import { useShortcuts } from "./use-shortcuts";
import { useStepCommands } from "./use-step-commands";
import { useValidation } from "./use-validation";
import { YamlPanel } from "./yaml-panel";
import { RunHistory } from "./run-history";
import { useNarrow } from "./use-narrow";

/** Props of BuilderEditor. */
export interface BuilderEditorProps {
  tools: ToolInfo[];
  initial: RecipeDraft;
  origin?: RecipeOrigin;
  /** Text that could not be parsed (opens the YAML panel on it). */
  brokenText?: string;
  /** What validate_recipe says about `origin.text`, when already known. */
  validation?: Validation;
}

/** The whole builder around one recipe. */
export function BuilderEditor({ tools, initial, origin: initialOrigin, brokenText, validation: knownValidation }: BuilderEditorProps) {
  const toolMap = useMemo(() => new Map(tools.map((t) => [t.name, t])), [tools]);
  const editor = useRecipeEditor(initial);
  const { draft } = editor;
  const { snapshot, now } = useDraftSnapshot(draft);
  // A new, untouched recipe is not "invalid" yet; judged on the snapshot, so the first check is of
  // text the user has actually written.
  const validation = useValidation(snapshot, snapshot.draft.steps.length > 0 || snapshot.draft !== initial || !!initialOrigin, knownValidation);
  const run = useRun();
  const { toasts, notify, dismiss } = useToasts();
  const [origin, setOrigin] = useState(initialOrigin);
  const [saved, setSaved] = useState<RecipeDraft | undefined>(initialOrigin ? initial : undefined);
  const [picker, setPicker] = useState<PickerState>();
  const [yamlOpen, setYamlOpen] = useState(!!brokenText);
  const [help, setHelp] = useState(false);
  const [runOpen, setRunOpen] = useState(false);
  const [runPrefill, setRunPrefill] = useState<{ values: Record<string, unknown>; label: string }>();
  // Phones: the side panel is a sheet under the canvas, shown on demand (the canvas keeps the screen).
  const narrow = useNarrow();
  const [sheet, setSheet] = useState(false);
  const [layoutToken, setLayoutToken] = useState(0);
  const [reveal, setReveal] = useState<{ id: string; n: number }>();
  const canvasRef = useRef<HTMLDivElement>(null);
  // A new recipe nobody has touched yet has nothing to lose.
  const dirty = draft !== saved && !(saved === undefined && draft === initial);
  const name = recipeName(draft);

  const revealNode = useCallback((id: string) => setReveal((r) => ({ id, n: (r?.n ?? 0) + 1 })), []);
  const focusName = useCallback((uid: string) => {
    requestAnimationFrame(() => {
      const input = document.getElementById(`s-${uid}-name`) as HTMLInputElement | null;
      input?.focus();
      input?.select();
    });
  }, []);
  const commands = useStepCommands({ editor, tools: toolMap, notify, reveal: revealNode, focusName });
  const focusCanvas = useCallback(() => canvasRef.current?.focus({ preventScroll: true }), []);
  const { select } = editor;
  const actions = useMemo<BuilderActions>(() => ({ select, openInsert: (index) => setPicker({ mode: "add", index }), focusCanvas }), [select, focusCanvas]);
  const openRun = useCallback(() => {
    setRunPrefill(undefined);
    if (recipeName(editor.current())) setRunOpen(true);
    else notify("error", "Name the recipe first: runs use the saved recipes/<name>.yaml.");
  }, [editor, notify]);

  const onSaved = useCallback(
    (result: SaveResult, savedDraft: RecipeDraft, text: string) => {
      setOrigin({ name: result.name, source: "project", text, revision: result.revision });
      setSaved(savedDraft);
      const problems = result.valid ? "" : `, with ${result.errors.length} problem${result.errors.length === 1 ? "" : "s"} to fix`;
      const shadow = result.user_recipe ? `; it takes the place of the user-wide ${result.user_recipe}` : "";
      notify("ok", `Saved ${result.path}${problems}${shadow}`);
      if (window.location.pathname !== `/recipes/${result.name}`) window.history.replaceState(null, "", `/recipes/${result.name}`);
    },
    [notify],
  );
  const onProblem = useCallback((message: string) => notify("error", message), [notify]);
  const saver = useSave({ origin, current: editor.current, onSaved, onProblem });

  const validateNow = useCallback(async () => {
    const result = await validation.validate(now());
    if (!result) return;
    if (result.valid) return notify("ok", `Valid${result.warnings.length ? `, with ${result.warnings.length} warning(s)` : ""}`);
    notify("error", `${result.errors.length} problem${result.errors.length === 1 ? "" : "s"}: ${result.errors[0].message}`);
  }, [validation, now, notify]);

  const startRun = useCallback(
    async (overrides: Record<string, string | number | boolean>) => {
      setRunOpen(false);
      if ((dirty || !origin) && !(await saver.save())) return;
      const current = editor.current();
      await run.start(recipeName(current), overrides, current.steps.map((s) => s.uid));
    },
    [dirty, origin, saver, editor, run],
  );

  // Run history: a past run's results go onto the current steps by position; its variables
  // (list_recipe_runs gives them) run again as they were, or start the run dialog.
  const openRun_ = useCallback((runId: string) => void run.open(runId, editor.current().steps.map((s) => s.uid)), [run, editor]);
  const scalars = (variables: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(variables).filter((e): e is [string, string | number | boolean] => ["string", "number", "boolean"].includes(typeof e[1])));
  const runAgain = useCallback((variables: Record<string, unknown>) => startRun(scalars(variables)), [startRun]);
  const editAndRun = useCallback((variables: Record<string, unknown>) => {
    setRunPrefill({ values: variables, label: "the values of that run" });
    setRunOpen(true);
  }, []);

  useShortcuts({
    undo: editor.undo,
    redo: editor.redo,
    save: () => void saver.save(),
    run: openRun,
    deleteSelection: () => commands.remove(editor.selection.filter((id) => id !== START_ID)),
    duplicate: () => commands.duplicate(editor.selection.filter((id) => id !== START_ID)),
    moveSelection: (delta) => commands.move(editor.selection.filter((id) => id !== START_ID), delta),
    selectAdjacent: commands.selectAdjacent,
    selectAll: commands.selectAll,
    addAfterSelection: () => setPicker({ mode: "add", index: commands.insertionIndex() }),
    editSelection: () => {
      setSheet(true);
      requestAnimationFrame(() => (document.querySelector("#inspector input, #inspector textarea") as HTMLElement | null)?.focus());
    },
    escape: () => (canvasRef.current?.contains(document.activeElement) ? editor.select([]) : focusCanvas()),
    autoLayout: () => setLayoutToken((n) => n + 1),
    help: () => setHelp(true),
    copy: commands.copy,
    paste: commands.paste,
  });

  // The canvas got narrower or wider: keep the selected node (or the start) in view.
  const firstRender = useRef(true);
  useEffect(() => {
    if (firstRender.current) return void (firstRender.current = false);
    const timer = setTimeout(() => revealNode(editor.selection[editor.selection.length - 1] ?? START_ID), 80);
    return () => clearTimeout(timer);
  }, [yamlOpen, sheet]);

  // Unsaved edits: closing the tab, the back link, the navigation bar and Back all ask first.
  useLeaveGuard(dirty, "This recipe has unsaved changes. Leave and lose them?");

  const errorCount = validation.result && validation.text === snapshot.text ? validation.result.errors.length : validation.result?.errors.length;
  return (
    <ToolsContext.Provider value={toolMap}>
      <ActionsContext.Provider value={actions}>
        <main className={`builder${narrow ? (sheet ? " sheet-open" : " sheet-closed") : ""}`}>
          <Toolbar
            name={name}
            dirty={dirty}
            canUndo={editor.canUndo}
            canRedo={editor.canRedo}
            errors={errorCount}
            validating={validation.pending}
            saving={saver.saving}
            yamlOpen={yamlOpen}
            run={run.state}
            on={{
              undo: editor.undo, redo: editor.redo, add: () => setPicker({ mode: "add", index: commands.insertionIndex() }),
              autoLayout: () => setLayoutToken((n) => n + 1), toggleYaml: () => setYamlOpen((o) => !o), validate: () => void validateNow(),
              save: () => void saver.save(), run: openRun, help: () => setHelp(true),
              ...(narrow ? { togglePanel: () => setSheet((o) => !o) } : {}),
            }}
            panelOpen={sheet}
          />
          <div className="builder-main">
            <RecipeCollab name={origin?.source === "project" ? origin.name : undefined} editing={dirty} />
            <div className="canvas" ref={canvasRef} tabIndex={0} role="application" aria-label="Recipe canvas: arrow keys select steps, Enter edits, Shift+A adds a step, ? lists the shortcuts" data-testid="canvas">
              <ReactFlowProvider>
                <RecipeCanvas draft={draft} issues={validation.index} runs={run.state.runs} selection={editor.selection} onMoveStep={commands.moveTo} layoutToken={layoutToken} reveal={reveal} />
              </ReactFlowProvider>
            </div>
            <Inspector draft={draft} selection={editor.selection} issues={validation.index} runs={run.state.runs} edit={editor.edit} commands={{ ...commands, pickTool: (uid: string) => setPicker({ mode: "change", uid }) }}
              onHide={narrow ? () => setSheet(false) : undefined}
              recipeExtra={<RunHistory recipe={origin?.name} defaults={variableEntries(draft)} shownRunId={run.state.runId} running={run.state.phase === "running"} onOpen={openRun_} onRunAgain={(v) => void runAgain(v)} onEditAndRun={editAndRun} />} />
            {yamlOpen && (
              <YamlPanel text={brokenText && draft === initial ? brokenText : snapshot.text} issues={validation.result?.errors ?? []} fileName={`${name || "recipe"}.yaml`} current={editor.current} onApply={(d, coalesce) => editor.edit(() => d, coalesce)} onClose={() => setYamlOpen(false)} />
            )}
          </div>
          <BuilderDialogs
            tools={tools}
            draft={draft}
            picker={picker}
            closePicker={() => setPicker(undefined)}
            pick={(p, tool) => (p.mode === "add" ? commands.add(p.index, tool) : commands.changeTool(p.uid, tool))}
            help={help}
            closeHelp={() => setHelp(false)}
            runOpen={runOpen}
            runPrefill={runPrefill}
            closeRun={() => setRunOpen(false)}
            startRun={(o) => void startRun(o)}
            dirty={dirty || !origin}
            errors={errorCount ?? 0}
            variables={variableEntries(draft)}
            question={saver.question}
            cancelSave={saver.cancel}
          />
          <Toasts toasts={run.state.phase === "error" && run.state.message ? [...toasts, { id: -1, kind: "error", text: run.state.message }] : toasts} dismiss={(id) => (id === -1 ? run.clear() : dismiss(id))} />
        </main>
      </ActionsContext.Provider>
    </ToolsContext.Provider>
  );
}
