"use client";
/** Allow or Deny: the answer goes to the library's /api/auth/oauth2/consent, then back to the client. */
import { useState } from "react";

const MEANING: Record<string, string> = {
  read: "read scenes, versions, recipes and history",
  write: "change scenes, save versions and run recipes, as you",
};

export function ConsentForm(props: { client: string; person: string; role: string; kiln: string[]; refused: string[]; granted: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const answer = async (accept: boolean) => {
    setBusy(true);
    setProblem(null);
    const r = await fetch("/api/auth/oauth2/consent", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      // The signed authorization request, exactly as the library sent this page its query.
      body: JSON.stringify({ accept, ...(accept ? { scope: props.granted } : {}), oauth_query: window.location.search.slice(1) }),
    });
    const body = (await r.json().catch(() => null)) as { redirect_uri?: string; url?: string; message?: string; error_description?: string } | null;
    const next = body?.redirect_uri ?? body?.url;
    if (r.ok && next) return window.location.assign(next);
    setBusy(false);
    setProblem(body?.message ?? body?.error_description ?? `The answer was refused (${r.status}).`);
  };
  return (
    <div className="card auth-card" data-testid="oauth-consent">
      <h1>Allow {props.client} to use Kiln?</h1>
      <p>Signed in as <strong>{props.person}</strong> ({props.role}). {props.client} will be able to:</p>
      <ul>{props.kiln.map((s) => <li key={s}><strong>{s}</strong>: {MEANING[s] ?? s}</li>)}</ul>
      {props.refused.includes("write") && <p className="notice">It asked to change things too; as a {props.role} you can allow reading only.</p>}
      <p className="muted small">Everything it does is recorded as yours, via {props.client}. You can sign it out by revoking its access.</p>
      {problem && <p role="alert" className="notice error">{problem}</p>}
      <div className="row">
        <button type="button" className="primary" disabled={busy || props.kiln.length === 0} onClick={() => answer(true)}>Allow</button>
        <button type="button" disabled={busy} onClick={() => answer(false)}>Deny</button>
      </div>
    </div>
  );
}
