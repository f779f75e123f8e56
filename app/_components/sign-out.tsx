"use client";
/** Sign out of this browser (the library's /api/auth/sign-out), then to the sign-in page. */
import { useState } from "react";

export async function authPost(path: string, body: unknown = {}): Promise<{ ok: boolean; status: number; result?: Record<string, unknown> | null; error?: { code: string; message: string } }> {
  const r = await fetch(`/api/auth${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (r.ok) return { ok: true, status: r.status, result: (await r.json().catch(() => null)) as Record<string, unknown> | null };
  const answer = (await r.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  return { ok: false, status: r.status, error: answer?.error ?? { code: "ERROR", message: `${r.status} ${r.statusText}` } };
}

export function SignOut() {
  const [busy, setBusy] = useState(false);
  return (
    <button type="button" className="link-button" disabled={busy} data-testid="sign-out"
      onClick={async () => {
        setBusy(true);
        await authPost("/sign-out");
        window.location.assign("/sign-in");
      }}>
      Sign out
    </button>
  );
}
