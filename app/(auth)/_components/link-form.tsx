"use client";
/**
 * The form behind a one-time link (set-up, invitation, password reset): POST /api/links, which
 * creates the account (or sets the password) and signs the person in; then the Studio opens.
 */
import { useState } from "react";

export interface LinkOffer {
  kind: "setup" | "invite" | "reset";
  secret: string;
  role: string;
  email: string | null;
  name: string | null;
}

const TITLES = { setup: "Set up the first owner", invite: "Join this Kiln", reset: "Choose a new password" } as const;

export function LinkForm({ offer }: { offer: LinkOffer }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const account = offer.kind !== "reset";
  return (
    <form className="card auth-card" onSubmit={async (e) => {
      e.preventDefault();
      const form = new FormData(e.currentTarget);
      const password = String(form.get("password") ?? "");
      if (password !== String(form.get("confirm") ?? "")) return setProblem("The two passwords differ.");
      setBusy(true);
      setProblem(null);
      const r = await fetch("/api/links", {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind: offer.kind, secret: offer.secret, password, ...(account ? { name: String(form.get("name") ?? ""), email: String(form.get("email") ?? "") } : {}) }),
      });
      setBusy(false);
      if (r.ok) return window.location.assign("/");
      const answer = (await r.json().catch(() => null)) as { error?: { message: string } } | null;
      setProblem(answer?.error?.message ?? `${r.status} ${r.statusText}`);
    }}>
      <h1>{TITLES[offer.kind]}</h1>
      {account && <p className="muted">You will be {offer.role === "owner" ? "an" : "a"} <strong>{offer.role}</strong> of this Kiln.</p>}
      {!account && offer.email && <p className="muted">For {offer.email}.</p>}
      {problem && <p role="alert" className="notice error">{problem}</p>}
      {account && <label>Name <input name="name" required maxLength={100} defaultValue={offer.name ?? ""} autoComplete="name" /></label>}
      {account && <label>Email <input name="email" type="email" required defaultValue={offer.email ?? ""} readOnly={!!offer.email} autoComplete="username" /></label>}
      <label>Password <input name="password" type="password" required minLength={8} autoComplete="new-password" /></label>
      <label>Password again <input name="confirm" type="password" required minLength={8} autoComplete="new-password" /></label>
      <button type="submit" className="primary" disabled={busy}>{account ? "Create account and sign in" : "Set password and sign in"}</button>
    </form>
  );
}
