"use client";
/**
 * The builder's keyboard shortcuts (the list the help dialog shows is SHORTCUTS). Undo/redo,
 * save and run work everywhere except inside the YAML text (which has its own text undo); the
 * step shortcuts work when no text field has the focus. Nothing fires while a dialog is open.
 * Copy and paste use the browser's copy/paste events, so steps travel through the system
 * clipboard as YAML text without asking for clipboard permissions.
 */
import { useEffect, useRef } from "react";

/** What the shortcuts do. */
export interface ShortcutHandlers {
  undo(): void;
  redo(): void;
  save(): void;
  run(): void;
  deleteSelection(): void;
  duplicate(): void;
  moveSelection(delta: -1 | 1): void;
  selectAdjacent(delta: -1 | 1): void;
  selectAll(): void;
  addAfterSelection(): void;
  editSelection(): void;
  escape(): void;
  autoLayout(): void;
  help(): void;
  /** The YAML of the selected steps, or undefined when none is selected. */
  copy(): string | undefined;
  paste(text: string): void;
}

/** Shortcut list for the help dialog and the docs. */
export const SHORTCUTS: [string, string][] = [
  ["Ctrl+Z", "Undo"],
  ["Ctrl+Shift+Z, Ctrl+Y", "Redo"],
  ["Ctrl+S", "Save"],
  ["Ctrl+Enter", "Run"],
  ["Shift+A", "Add a step after the selected one"],
  ["Ctrl+C / Ctrl+V", "Copy / paste the selected steps (as YAML)"],
  ["Ctrl+D", "Duplicate the selected steps"],
  ["Delete, Backspace", "Delete the selected steps"],
  ["Alt+↑ / Alt+↓", "Move the selected steps up / down"],
  ["↑ / ↓", "Select the previous / next node"],
  ["Ctrl+A", "Select every step"],
  ["Enter", "Edit the selected node in the side panel"],
  ["Escape", "Back to the canvas; clear the selection"],
  ["Shift+L", "Auto-layout and fit the view"],
  ["?", "This list"],
];

function isEditable(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || (el.tagName === "INPUT" && !["checkbox", "radio", "button", "submit", "color", "file"].includes((el as HTMLInputElement).type));
}

const dialogOpen = () => !!document.querySelector("dialog[open]");
const inYaml = (target: EventTarget | null) => !!(target as HTMLElement | null)?.closest?.(".yaml-panel");

/** Installs the shortcuts for as long as the builder is mounted. */
export function useShortcuts(handlers: ShortcutHandlers): void {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (dialogOpen() || e.isComposing) return;
      const h = ref.current;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      const editable = isEditable(e.target);
      const act = (fn: () => void) => {
        e.preventDefault();
        fn();
      };
      if (mod && key === "s") return act(h.save);
      if (mod && key === "enter") return act(h.run);
      if (mod && !inYaml(e.target) && ((key === "z" && e.shiftKey) || key === "y")) return act(h.redo);
      if (mod && !inYaml(e.target) && key === "z") return act(h.undo);
      if (key === "escape") return h.escape();
      if (editable) return;
      if (mod && key === "d") return act(h.duplicate);
      if (mod && key === "a") return act(h.selectAll);
      if (mod) return;
      if (e.altKey && key === "arrowup") return act(() => h.moveSelection(-1));
      if (e.altKey && key === "arrowdown") return act(() => h.moveSelection(1));
      if (e.altKey) return;
      if (key === "delete" || key === "backspace") return act(h.deleteSelection);
      if (key === "arrowup") return act(() => h.selectAdjacent(-1));
      if (key === "arrowdown") return act(() => h.selectAdjacent(1));
      if (e.shiftKey && key === "a") return act(h.addAfterSelection);
      if (e.shiftKey && key === "l") return act(h.autoLayout);
      if (key === "?") return act(h.help);
      if (key === "enter" && !(e.target as HTMLElement | null)?.closest?.("button, a")) return act(h.editSelection);
    };
    const onCopy = (e: ClipboardEvent) => {
      if (dialogOpen() || isEditable(e.target) || document.getSelection()?.toString()) return;
      const text = ref.current.copy();
      if (text === undefined || !e.clipboardData) return;
      e.clipboardData.setData("text/plain", text);
      e.preventDefault();
    };
    const onPaste = (e: ClipboardEvent) => {
      if (dialogOpen() || isEditable(e.target)) return;
      e.preventDefault();
      ref.current.paste(e.clipboardData?.getData("text/plain") ?? "");
    };
    window.addEventListener("keydown", onKey);
    document.addEventListener("copy", onCopy);
    document.addEventListener("paste", onPaste);
    return () => {
      window.removeEventListener("keydown", onKey);
      document.removeEventListener("copy", onCopy);
      document.removeEventListener("paste", onPaste);
    };
  }, []);
}
