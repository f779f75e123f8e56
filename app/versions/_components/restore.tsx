"use client";
/**
 * Restoring a version from any studio page: a button that is off, with the reason beside it,
 * while a transaction is open (restore_version would answer 409 TRANSACTION_OPEN), and a dialog
 * that says first what the restore will change in each app (diff_versions from the working state
 * to the version) and whether unsaved work will be auto-saved (list_branches' changed_since_base,
 * the rule restore_version follows).
 */
import { useId, useState } from "react";
import { Dialog } from "@/app/recipes/_components/dialog";
import { useStudioApi, type Branch, type Diff } from "@/app/_lib/studio-api";
import { attempt, useLoad } from "@/app/_lib/use-load";
import { useViewer } from "@/app/_lib/viewer";
import { restorePhrases } from "../_lib/diff-words";

const APPS = ["blender", "unity", "godot"];

/** Whether version and branch changes are possible now: not while a transaction is open. */
export interface Gate { open: boolean; reason?: string }

/** The transaction gate, loaded again whenever `stamp` changes (an event said something changed). */
export function useTransactionGate(stamp: number): Gate {
  const api = useStudioApi();
  const status = useLoad(() => api.transaction(), [api, stamp]);
  const tx = status.data?.transaction;
  return tx
    ? { open: true, reason: `The transaction “${tx.name}” is open: commit or roll it back first (Versions › Transaction); versions and branches cannot change meanwhile.` }
    : { open: false };
}

/** Why version changes are off, once for a group of buttons (they point at it with aria-describedby). */
export function GateNote({ gate, id }: { gate: Gate; id: string }) {
  return gate.open ? <p id={id} className="gate-reason small" role="status" data-testid="gate-reason">{gate.reason}</p> : null;
}

/**
 * A version-changing button, off while a transaction is open; `noteId` names the GateNote that
 * says why (without one, the button shows the reason beside itself).
 */
export function GatedButton({ gate, noteId, needs = "editor", children, ...props }: React.ButtonHTMLAttributes<HTMLButtonElement> & { gate: Gate; noteId?: string; needs?: "editor" | "owner" }) {
  const own = useId();
  // The server refuses anyway (403); this spares a viewer (or an editor, for owner-only changes) a button that would.
  const { role } = useViewer();
  const allowed = needs === "owner" ? role === "owner" : role !== "viewer";
  const title = gate.open ? gate.reason : allowed ? props.title : `Read-only: this needs the ${needs} role; you are ${role === "editor" ? "an" : "a"} ${role}.`;
  return (
    <>
      <button type="button" {...props} disabled={gate.open || !allowed || props.disabled} title={title} aria-describedby={gate.open ? noteId ?? own : undefined}>{children}</button>
      {!noteId && <GateNote gate={gate} id={own} />}
    </>
  );
}

/** "Restore vNNN…": asks with what will change, then restores. */
export function RestoreButton({ id, name, gate, noteId, onRestored, className }: { id: string; name?: string; gate: Gate; noteId?: string; onRestored(message: string): void; className?: string }) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <GatedButton gate={gate} noteId={noteId} className={className} onClick={() => setAsking(true)} data-testid={`restore-${id}`}>Restore {id}…</GatedButton>
      {asking && <RestoreDialog id={id} name={name} onClose={() => setAsking(false)} onRestored={(m) => { setAsking(false); onRestored(m); }} />}
    </>
  );
}

function RestoreDialog({ id, name, onClose, onRestored }: { id: string; name?: string; onClose(): void; onRestored(message: string): void }) {
  const api = useStudioApi();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const plan = useLoad(async () => {
    const [diff, branches] = await Promise.all([api.diff("working", id), api.listBranches()]);
    return { diff, branch: branches.branches.find((b) => b.current) };
  }, [api, id]);
  const restore = async () => {
    setBusy(true);
    let result: { auto_saved: { version_id: string } | null } | undefined;
    const ok = await attempt(async () => { result = await api.write<{ auto_saved: { version_id: string } | null }>("restore_version", { version_id: id }); }, setProblem);
    setBusy(false);
    if (ok) onRestored(`Restored ${id}${result?.auto_saved ? ` (unsaved work saved first as ${result.auto_saved.version_id})` : ""}`);
  };
  return (
    <Dialog title={`Restore ${id}${name ? ` “${name}”` : ""}?`} onClose={onClose} className="restore-dialog">
      {plan.error && <p className="notice error" role="alert">{plan.error}</p>}
      {!plan.data && !plan.error && <p className="loading">Working out what changes…</p>}
      {plan.data && <RestorePlan id={id} diff={plan.data.diff} branch={plan.data.branch} />}
      {problem && <p className="notice error" role="alert">{problem}</p>}
      <div className="dialog-actions">
        <button type="button" onClick={onClose} autoFocus>Cancel</button>
        <button type="button" className="primary" onClick={() => void restore()} disabled={!plan.data || busy} data-testid="restore-confirm">{busy ? "Restoring…" : `Restore ${id}`}</button>
      </div>
    </Dialog>
  );
}

/** What restoring `id` does, per app, and whether unsaved work is saved first. */
function RestorePlan({ id, diff, branch }: { id: string; diff: Diff; branch?: Branch }) {
  const apps = APPS.filter((a) => diff.apps[a]);
  const untouched = APPS.filter((a) => !diff.apps[a]);
  return (
    <div className="dialog-text" data-testid="restore-plan">
      <p>The working state{branch ? <> of <strong>{branch.name}</strong></> : null} becomes {id}{branch?.head && branch.head !== id ? `; the branch head stays ${branch.head}` : ""}.</p>
      {diff.total_changes === 0 ? <p>The working state already equals {id}: nothing changes.</p> : (
        <ul className="restore-apps">
          {apps.map((app) => <li key={app} data-testid={`restore-app-${app}`}><strong>{app}</strong>: {restorePhrases(diff.apps[app]).join("; ")}.</li>)}
          {untouched.length > 0 && <li className="muted">{untouched.join(", ")}: nothing changes.</li>}
        </ul>
      )}
      {branch && (branch.changed_since_base
        ? <p data-testid="restore-autosave"><strong>Unsaved changes</strong> since {branch.working_base ?? "the start"} are saved first as an automatic version, so nothing is lost.</p>
        : <p className="muted" data-testid="restore-autosave">Nothing is unsaved (the working state is {branch.working_base ?? "the initial state"} as saved), so no automatic version is made.</p>)}
    </div>
  );
}
