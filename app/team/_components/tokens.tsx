"use client";
/**
 * Personal access tokens: create one (the secret is shown once), see yours (owners: everyone's)
 * with their last use, revoke. And "sign out everywhere" (the library's revoke-sessions).
 */
import { useState } from "react";
import { authPost } from "../../_components/sign-out";
import { useViewer } from "../../_lib/viewer";
import { ShownOnce } from "./team-tabs";
import { useRead, useWrite } from "./use-tool";

interface Token { id: string; name: string; scope: string; start: string | null; user: { id: string; name: string }; created_at: string; expires_at: string | null; last_used_at: string | null }
const SCOPES = { viewer: ["read"], editor: ["read", "write"], owner: ["read", "write", "admin"] } as const;
const when = (iso: string | null, none: string) => (iso ? new Date(iso).toLocaleString() : none);

export function Tokens() {
  const viewer = useViewer();
  const owner = viewer.role === "owner";
  const [all, setAll] = useState(owner);
  const list = useRead<{ tokens: Token[] }>("list_tokens", all ? { all: true } : {});
  const write = useWrite();
  const [created, setCreated] = useState<(Token & { token: string }) | null>(null);

  return (
    <>
      <section className="panel">
        <h2>New token</h2>
        <p className="muted">For an AI client, the CLI, CI or a live app: it sends <code>Authorization: Bearer &lt;token&gt;</code> and acts as you, within its scope.</p>
        <form className="row" onSubmit={async (e) => {
          e.preventDefault();
          const element = e.currentTarget;
          const form = new FormData(element);
          const token = await write.call<Token & { token: string }>("create_token", { name: form.get("name"), scope: form.get("scope"), expires: form.get("expires") });
          if (token) {
            setCreated(token);
            list.reload();
            element.reset();
          }
        }}>
          <label>Name <input name="name" required maxLength={100} placeholder="claude on laptop" data-testid="token-name" /></label>
          <label>Scope <select name="scope" defaultValue="read">{SCOPES[viewer.role].map((s) => <option key={s}>{s}</option>)}</select></label>
          <label>Expires <select name="expires" defaultValue="90d">{["7d", "30d", "90d", "1y", "never"].map((s) => <option key={s}>{s}</option>)}</select></label>
          <button type="submit" className="primary" data-testid="create-token">Create token</button>
        </form>
        {created && <ShownOnce label={`Token "${created.name}" (${created.scope}):`} value={created.token} note="Copy it now: it is shown this once, and only its hash is kept." />}
        {write.error && <p role="alert" className="notice error">{write.error.message}</p>}
      </section>
      <section className="panel">
        <h2>{all ? "Everyone's tokens" : "Your tokens"} {owner && <button type="button" className="link-button" onClick={() => setAll(!all)}>{all ? "show mine" : "show everyone's"}</button>}</h2>
        {list.error && <p role="alert" className="notice error">{list.error.message}</p>}
        <div className="table-scroll">
          <table className="data-table" data-testid="tokens">
            <thead><tr><th>Name</th><th>Scope</th>{all && <th>Holder</th>}<th>Starts with</th><th>Created</th><th>Expires</th><th>Last used</th><th /></tr></thead>
            <tbody>
              {(list.data?.tokens ?? []).map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td><td>{t.scope}</td>{all && <td>{t.user.name}</td>}<td><code>{t.start}…</code></td>
                  <td>{when(t.created_at, "")}</td><td>{when(t.expires_at, "never")}</td><td>{when(t.last_used_at, "never")}</td>
                  <td><button type="button" className="danger" onClick={async () => { if (window.confirm(`Revoke "${t.name}"? Its next request is refused.`) && (await write.call("revoke_token", { id: t.id }))) list.reload(); }}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data?.tokens.length === 0 && <p className="empty">No tokens.</p>}
        </div>
      </section>
      {viewer.signedIn && (
        <section className="panel">
          <h2>Sessions</h2>
          <p className="muted">Signed in elsewhere (another browser, a lost laptop)? This ends every session of yours, this one too.</p>
          <button type="button" className="danger" data-testid="sign-out-everywhere" onClick={async () => {
            await authPost("/revoke-sessions");
            window.location.assign("/sign-in");
          }}>Sign out everywhere</button>
        </section>
      )}
    </>
  );
}
