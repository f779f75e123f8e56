"use client";
/**
 * A modal dialog on the native <dialog> element: focus stays inside, Escape closes it, and the
 * page behind is inert, with no extra code. Mount it to open it; `onClose` unmounts it.
 */
import { useEffect, useId, useRef, type ReactNode } from "react";

/** Props of Dialog. */
export interface DialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  className?: string;
}

/** An open modal dialog with a title. */
export function Dialog({ title, onClose, children, className }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ""}`}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        if (e.target === ref.current) onClose();
      }}
    >
      <div className="dialog-body">
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </dialog>
  );
}

/** Props of ConfirmDialog. */
export interface ConfirmProps {
  title: string;
  children: ReactNode;
  confirm: string;
  danger?: boolean;
  onConfirm(): void;
  onClose(): void;
}

/** A yes/no question; the safe answer has the focus. */
export function ConfirmDialog({ title, children, confirm, danger, onConfirm, onClose }: ConfirmProps) {
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="dialog-text">{children}</div>
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>Cancel</button>
        <button type="button" className={danger ? "danger" : "primary"} onClick={onConfirm}>{confirm}</button>
      </div>
    </Dialog>
  );
}
