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
      const answer = await authPost("/sign-in/email", { email: String(form.get("email") ?? ""), password: String(form.get("password") ?? "") });
      setBusy(false);
      if (answer.ok) return window.location.assign(safeNext(next));
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
