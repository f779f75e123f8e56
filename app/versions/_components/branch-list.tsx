"use client";
/** Branches with head, base, version count and unsaved changes; switch to one from here. */
import { useState } from "react";
import { attempt } from "@/app/_lib/use-load";
import { useStudioApi, type Branch } from "@/app/_lib/studio-api";
import { useCanEdit } from "../../_lib/viewer";

export function BranchList({ branches, onChanged }: { branches: Branch[]; onChanged(message: string): void }) {
  const canEdit = useCanEdit();
  const api = useStudioApi();
  const [problem, setProblem] = useState<string>();
  return (
    <>
      {/* Scrolls inside the panel rather than painting past it when names are long. */}
      <div className="table-scroll">
      <table className="data-table" data-testid="branches">
        <thead><tr><th>Branch</th><th>Head</th><th>Base</th><th>Versions</th><th>Working</th><th /></tr></thead>
        <tbody>
          {branches.map((b) => (
            <tr key={b.name} className={b.current ? "is-selected" : undefined} data-testid={`branch-${b.name}`}>
              <td><strong className="branch-name">{b.name}</strong> {b.current && <span className="badge accent">current</span>}</td>
              <td>{b.head ?? "—"}</td>
              <td>{b.base ?? "—"}</td>
              <td>{b.versions}</td>
              <td>{b.unsaved_changes ? <span className="badge accent">unsaved changes</span> : <span className="muted">saved</span>}</td>
              <td>
                {!b.current && (
                  <button type="button" onClick={async () => { if (await attempt(() => api.write("switch_branch", { name: b.name }), setProblem)) onChanged(`Switched to ${b.name}`); }} data-testid={`switch-${b.name}`} disabled={!canEdit}>Switch</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {problem && <p className="notice error" role="alert">{problem}</p>}
    </>
  );
}
