"use client";
/** The sign-in form: email and password to the library's /api/auth/sign-in/email, then on to `next`. */
import { useState } from "react";
import { authPost } from "../../_components/sign-out";

/** Only a path on this site: never `//host` or `/\host`, which browsers treat as another site. */
export const safeNext = (next: string | undefined) => (next && /^\/(?![/\\])/.test(next) ? next : "/");

export function SignInForm({ next }: { next?: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form className="card auth-card" onSubmit={async (e) => {
      e.preventDefault();
      const form = new FormData(e.currentTarget);
      setBusy(true);
      setProblem(null);
      // Sent here by the OAuth flow of an AI client (a signed request in the query): the library
      // carries on with that request once signed in, and answers where to go next (the consent page).
      const oauthQuery = new URLSearchParams(window.location.search).has("sig") ? window.location.search.slice(1) : undefined;
      const answer = await authPost("/sign-in/email", { email: String(form.get("email") ?? ""), password: String(form.get("password") ?? ""), ...(oauthQuery ? { oauth_query: oauthQuery } : {}) });
      setBusy(false);
      const oauthNext = oauthQuery && typeof answer.result?.url === "string" ? answer.result.url : undefined;
      if (answer.ok) return window.location.assign(oauthNext ?? safeNext(next));
      setProblem(answer.status === 401 ? "That email and password do not match a member." : answer.error?.message ?? "Signing in failed.");
    }}>
      <h1>Sign in to Kiln</h1>
      {problem && <p role="alert" className="notice error">{problem}</p>}
      <label>Email <input name="email" type="email" autoComplete="username" required autoFocus /></label>
      <label>Password <input name="password" type="password" autoComplete="current-password" required /></label>
      <button type="submit" className="primary" disabled={busy}>Sign in</button>
      <p className="muted small">No account? Ask an owner of this Kiln for an invitation link.</p>
    </form>
  );
}
