"use client";
/** The keyboard shortcuts dialog ("?"). */
import { Dialog } from "./dialog";
import { SHORTCUTS } from "./use-shortcuts";

/** Lists every shortcut. */
export function ShortcutsHelp({ onClose }: { onClose(): void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} className="shortcuts-dialog">
      <p className="muted">On a Mac, ⌘ works wherever Ctrl is listed.</p>
      <dl className="shortcut-list">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt><kbd>{keys}</kbd></dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>Close</button>
      </div>
    </Dialog>
  );
}
