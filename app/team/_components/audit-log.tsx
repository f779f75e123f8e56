"use client";
/** The audit log (owners): newest first, filtered by kind of event, 50 at a time. */
import { useState } from "react";
import { useRead } from "./use-tool";

interface Entry { id: number; at: string; action: string; actor: { name: string }; target: { name: string } | null; ip: string | null; details: Record<string, unknown> }
const ACTIONS = ["sign_in", "sign_in_failed", "owner_set_up", "member_invited", "member_added", "member_removed", "role_changed", "password_reset", "password_changed", "token_created", "token_revoked", "lock_broken"];
const PAGE = 50;

export function AuditLog() {
  const [action, setAction] = useState("");
  const [offset, setOffset] = useState(0);
  const log = useRead<{ entries: Entry[]; total: number }>("get_audit_log", { limit: PAGE, offset, ...(action ? { action } : {}) });
  const total = log.data?.total ?? 0;
  return (
    <section className="panel">
      <h2>Audit log <span className="muted small">{total} event{total === 1 ? "" : "s"}</span></h2>
      <div className="row">
        <label>Kind <select value={action} onChange={(e) => { setAction(e.target.value); setOffset(0); }} data-testid="audit-action">
          <option value="">all</option>{ACTIONS.map((a) => <option key={a}>{a}</option>)}
        </select></label>
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Newer</button>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>Older</button>
      </div>
      {log.error && <p role="alert" className="notice error">{log.error.message}</p>}
      <div className="table-scroll">
        <table className="data-table" data-testid="audit">
          <thead><tr><th>When</th><th>Event</th><th>By</th><th>About</th><th>From</th><th>Details</th></tr></thead>
          <tbody>
            {(log.data?.entries ?? []).map((e) => (
              <tr key={e.id}>
                <td>{new Date(e.at).toLocaleString()}</td><td>{e.action.replace(/_/g, " ")}</td><td>{e.actor.name}</td><td>{e.target?.name ?? ""}</td>
                <td>{e.ip ?? ""}</td><td className="small mono">{Object.keys(e.details).length ? JSON.stringify(e.details) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
