"use client";
/** Short messages in a corner (saved, copied, errors), read out by screen readers. */
import { useCallback, useRef, useState } from "react";

/** One message. */
export interface Toast {
  id: number;
  kind: "info" | "ok" | "error";
  text: string;
}

/** Toast state: `notify` shows a message for a few seconds (errors stay until dismissed). */
export function useToasts() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  const notify = useCallback(
    (kind: Toast["kind"], text: string) => {
      const id = ++next.current;
      setToasts((list) => [...list.slice(-3), { id, kind, text }]);
      if (kind !== "error") setTimeout(() => dismiss(id), 4000);
    },
    [dismiss],
  );
  return { toasts, notify, dismiss };
}

/** The toast stack. */
export function Toasts({ toasts, dismiss }: { toasts: Toast[]; dismiss(id: number): void }) {
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} data-testid={`toast-${t.kind}`}>
          <span>{t.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismiss(t.id)}>✕</button>
        </div>
      ))}
    </div>
  );
}
