"use client";
/** Members (owners): invite by link, change roles, reset passwords, remove. Every action is a team tool. */
import { useState } from "react";
import { useViewer } from "../../_lib/viewer";
import { ShownOnce } from "./team-tabs";
import { useRead, useWrite } from "./use-tool";

interface Member { id: string; name: string; email: string; role: string; created_at: string; tokens: number }
interface Link { url: string; path: string; expires_at: string }
const ROLES = ["viewer", "editor", "owner"] as const;

export function Members() {
  const viewer = useViewer();
  const list = useRead<{ users: Member[] }>("list_users", {});
  const write = useWrite();
  const [shown, setShown] = useState<{ label: string; link: Link } | null>(null);
  const absolute = (l: Link) => `${window.location.origin}${l.path}`;
  const done = () => list.reload();

  return (
    <>
      <section className="panel">
        <h2>Invite someone</h2>
        <form className="row" onSubmit={async (e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const email = String(form.get("email") ?? "").trim();
          const link = await write.call<Link & { email: string | null }>("invite_user", { role: form.get("role"), ...(email ? { email } : {}) });
          if (link) setShown({ label: `Invitation${email ? ` for ${email}` : ""} (${String(form.get("role"))}):`, link });
        }}>
          <label>Role <select name="role" defaultValue="editor" data-testid="invite-role">{ROLES.map((r) => <option key={r}>{r}</option>)}</select></label>
          <label>Email (optional) <input name="email" type="email" placeholder="ada@example.com" /></label>
          <button type="submit" className="primary" data-testid="invite">Create invitation link</button>
        </form>
        {shown && <ShownOnce label={shown.label} value={absolute(shown.link)} note={`Copy it now and hand it over; it works once, until ${new Date(shown.link.expires_at).toLocaleString()}.`} />}
        {write.error && <p role="alert" className="notice error">{write.error.message}</p>}
      </section>
      <section className="panel">
        <h2>Members</h2>
        {list.error && <p role="alert" className="notice error">{list.error.message}</p>}
        <div className="table-scroll">
          <table className="data-table" data-testid="members">
            <thead><tr><th>Name</th><th>Email</th><th>Role</th><th>Tokens</th><th>Since</th><th /></tr></thead>
            <tbody>
              {(list.data?.users ?? []).map((m) => (
                <tr key={m.id} data-testid={`member-${m.email}`}>
                  <td>{m.name}{m.email === viewer.email ? " (you)" : ""}</td>
                  <td>{m.email}</td>
                  <td>
                    <select aria-label={`Role of ${m.name}`} value={m.role} onChange={async (e) => { if (await write.call("set_user_role", { user: m.id, role: e.target.value })) done(); }}>
                      {ROLES.map((r) => <option key={r}>{r}</option>)}
                    </select>
                  </td>
                  <td>{m.tokens}</td>
                  <td>{new Date(m.created_at).toLocaleDateString()}</td>
                  <td className="row">
                    <button type="button" onClick={async () => {
                      const r = await write.call<{ link: Link | null }>("reset_password", { user: m.id });
                      if (r?.link) setShown({ label: `Password reset for ${m.email}:`, link: r.link });
                    }}>Reset password…</button>
                    <button type="button" className="danger" onClick={async () => {
                      if (window.confirm(`Remove ${m.name}? Their sessions and tokens end at once.`) && (await write.call("remove_user", { user: m.id }))) done();
                    }}>Remove…</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
