"use client";
/** Branches with head, base, version count and unsaved changes; switch to one from here. */
import { useId, useState } from "react";
import { attempt } from "@/app/_lib/use-load";
import { useStudioApi, type Branch } from "@/app/_lib/studio-api";
import { GateNote, GatedButton, type Gate } from "./restore";

export function BranchList({ branches, gate, onChanged }: { branches: Branch[]; gate: Gate; onChanged(message: string): void }) {
  const api = useStudioApi();
  const note = useId();
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
              <td>{b.changed_since_base ? <span className="badge accent">unsaved changes</span> : <span className="muted">saved{b.working_base && b.working_base !== b.head ? ` (at ${b.working_base})` : ""}</span>}</td>
              <td>
                {!b.current && (
                  <GatedButton gate={gate} noteId={note} onClick={async () => { if (await attempt(() => api.write("switch_branch", { name: b.name }), setProblem)) onChanged(`Switched to ${b.name}`); }} data-testid={`switch-${b.name}`}>Switch</GatedButton>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
      {branches.length > 1 && <GateNote gate={gate} id={note} />}
      {problem && <p className="notice error" role="alert">{problem}</p>}
    </>
  );
}
