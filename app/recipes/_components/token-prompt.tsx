"use client";
/** Asks for Kiln's access token when the service runs with KILN_TOKEN (answers were 401). */
import { useState } from "react";
import { setToken } from "../_lib/trpc";
import { useViewer } from "../../_lib/viewer";

/** The token form; `onSet` retries what failed. */
export function TokenPrompt({ onSet }: { onSet(): void }) {
  const [value, setValue] = useState("");
  // Team mode: a 401 means the session ended (signed out elsewhere, removed): sign in again.
  if (useViewer().mode === "team")
    return <p className="token-prompt card">Your session has ended. <a href={`/sign-in?next=${encodeURIComponent(typeof window === "undefined" ? "/" : window.location.pathname)}`}>Sign in again</a>.</p>;
  return (
    <form
      className="token-prompt card"
      onSubmit={(e) => {
        e.preventDefault();
        setToken(value.trim());
        onSet();
      }}
    >
      <p>This Kiln requires an access token (<code>KILN_TOKEN</code>). It is kept in this tab only.</p>
      <label htmlFor="kiln-token">Access token</label>
      <input id="kiln-token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
      <button type="submit" className="primary">Use token</button>
    </form>
  );
}
