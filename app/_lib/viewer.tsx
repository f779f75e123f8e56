"use client";
/**
 * Who is looking at the Studio (docs/teams.md): the mode, the person and their role, resolved on
 * the server for each page (app/_lib/viewer-server.ts). Pages use it to show or disable editing
 * controls; the server enforces every permission anyway, so this only spares people buttons that
 * would answer 403.
 */
import { createContext, useContext, type ReactNode } from "react";

export interface Viewer {
  mode: "personal" | "team";
  /** null on pages anyone may open in team mode (sign-in, one-time links). */
  name: string | null;
  email: string | null;
  role: "viewer" | "editor" | "owner";
  /** Signed in with the session cookie (so signing out means something). */
  signedIn: boolean;
}

const PERSONAL: Viewer = { mode: "personal", name: null, email: null, role: "owner", signedIn: false };
const ViewerContext = createContext<Viewer>(PERSONAL);

export function ViewerProvider({ viewer, children }: { viewer: Viewer; children: ReactNode }) {
  return <ViewerContext.Provider value={viewer}>{children}</ViewerContext.Provider>;
}

export function useViewer(): Viewer {
  return useContext(ViewerContext);
}

/** Whether the viewer may change things (editors and owners; everyone in personal mode). */
export function useCanEdit(): boolean {
  return useViewer().role !== "viewer";
}

/**
 * Editing controls: shown as they are to people who may change things, disabled for viewers (a
 * disabled fieldset disables every input, select and button inside it).
 */
export function EditGate({ children, label }: { children: ReactNode; label?: string }) {
  const canEdit = useCanEdit();
  if (canEdit) return <>{children}</>;
  return (
    <fieldset disabled className="edit-gate" aria-label={label} title="Read-only: your role is viewer">
      {children}
    </fieldset>
  );
}
