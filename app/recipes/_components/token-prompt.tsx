"use client";
/** Asks for Kiln's access token when the service runs with KILN_TOKEN (answers were 401). */
import { useState } from "react";
import { setToken } from "../_lib/trpc";

/** The token form; `onSet` retries what failed. */
export function TokenPrompt({ onSet }: { onSet(): void }) {
  const [value, setValue] = useState("");
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
