"use client";
/**
 * The step commands shared by the keyboard, the toolbar, the canvas and the side panel: add (via
 * the tool picker), delete, duplicate, move, select the previous/next node, copy and paste. Each
 * is one edit (one undo step) and leaves a sensible selection behind.
 */
import { useMemo, useRef } from "react";
import { isRecord } from "../_lib/draft";
import { addStep, changeTool, duplicateSteps, insertSteps, moveStepTo, moveSteps, removeSteps, renameReferences, stepIdOf } from "../_lib/edits";
import { stepsFromClipboard } from "../_lib/clipboard";
import { START_ID } from "../_lib/graph";
import { keyOrder } from "../_lib/schema-form";
import { stepsToYaml } from "../_lib/serialize";
import type { ToolInfo } from "../_lib/tools";
import type { RecipeEditor } from "./use-recipe-editor";

/** What the commands need from the builder around them. */
export interface StepCommandDeps {
  editor: RecipeEditor;
  tools: ReadonlyMap<string, ToolInfo>;
  notify(kind: "info" | "ok" | "error", text: string): void;
  reveal(id: string): void;
  /** Focuses the name box of a new step so typing names it. */
  focusName(uid: string): void;
}

/** The commands; stable as long as the editor's functions are (they are). */
export function useStepCommands({ editor, tools, notify, reveal, focusName }: StepCommandDeps) {
  const { edit, current, select } = editor;
  // Read at call time: the commands stay the same objects while the selection changes.
  const selection = useRef(editor.selection);
  selection.current = editor.selection;
  return useMemo(() => {
    const chain = () => [START_ID, ...current().steps.map((s) => s.uid)];
    const selectedSteps = () => {
      const ids = new Set(selection.current);
      return current().steps.filter((s) => ids.has(s.uid)).map((s) => s.uid);
    };
    /** Where a new or pasted step goes: after the last selected step, first after the start node, else last. */
    const insertionIndex = () => {
      const steps = current().steps;
      const picked = selectedSteps();
      if (picked.length) return Math.max(...picked.map((uid) => steps.findIndex((s) => s.uid === uid))) + 1;
      return selection.current.includes(START_ID) ? 0 : steps.length;
    };
    return {
      insertionIndex,
      add(index: number, tool: string) {
        let uid = "";
        edit((d) => {
          const added = addStep(d, index, tool);
          uid = added.uid;
          return added.draft;
        });
        select([uid]);
        reveal(uid);
        focusName(uid);
      },
      /** Follows a step's new id in the other steps, unless another step already has that id. */
      renameReferences(uid: string, from: string, to: string) {
        if (current().steps.some((s) => s.uid !== uid && (stepIdOf(s.value) === to || stepIdOf(s.value) === from))) return;
        let count = 0;
        edit((d) => {
          const out = renameReferences(d, from, to);
          count = out.count;
          return out.draft;
        }, `step:${uid}:name`);
        if (count > 0) notify("info", `Updated ${count} reference${count === 1 ? "" : "s"}: steps.${from} is now steps.${to}`);
      },
      changeTool(uid: string, tool: string) {
        edit((d) => changeTool(d, uid, tool, keyOrder(tools.get(tool)?.input)));
      },
      remove(uids: readonly string[]) {
        if (uids.length === 0) return;
        const steps = current().steps;
        const first = Math.min(...uids.map((u) => steps.findIndex((s) => s.uid === u)).filter((i) => i >= 0));
        edit((d) => removeSteps(d, uids));
        const rest = current().steps;
        select([rest[Math.min(first, rest.length) - 1]?.uid ?? START_ID]);
      },
      duplicate(uids: readonly string[]) {
        let copies: string[] = [];
        edit((d) => {
          const out = duplicateSteps(d, uids);
          copies = out.uids;
          return out.draft;
        });
        if (copies.length) select(copies);
      },
      move(uids: readonly string[], delta: -1 | 1) {
        edit((d) => moveSteps(d, uids, delta));
        if (uids[0]) reveal(uids[0]);
      },
      moveTo(uid: string, index: number) {
        edit((d) => moveStepTo(d, uid, index));
        select([uid]);
      },
      selectAdjacent(delta: -1 | 1) {
        const ids = chain();
        const last = selection.current[selection.current.length - 1];
        const at = last === undefined ? (delta > 0 ? -1 : ids.length) : ids.indexOf(last);
        const next = ids[Math.max(0, Math.min(ids.length - 1, at + delta))];
        select([next]);
        reveal(next);
      },
      selectAll() {
        select(current().steps.map((s) => s.uid));
      },
      copy(): string | undefined {
        const uids = new Set(selectedSteps());
        const values = current().steps.filter((s) => uids.has(s.uid)).map((s) => s.value);
        if (values.length === 0) return undefined;
        notify("info", `Copied ${values.length} step${values.length === 1 ? "" : "s"} as YAML`);
        return stepsToYaml(values);
      },
      paste(text: string, fallback?: string) {
        const values = stepsFromClipboard(text) ?? (fallback ? stepsFromClipboard(fallback) : undefined);
        if (!values) {
          notify("info", "The clipboard holds no steps (copy steps, or YAML of a step list)");
          return;
        }
        let uids: string[] = [];
        const index = insertionIndex();
        edit((d) => {
          const out = insertSteps(d, index, values.map((v) => (isRecord(v) ? v : { value: v })));
          uids = out.uids;
          return out.draft;
        });
        select(uids);
        if (uids[0]) reveal(uids[0]);
      },
    };
  }, [edit, current, select, tools, notify, reveal, focusName]);
}
