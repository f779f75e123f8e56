"use client";
/** The open transaction with its operations, and commit / roll back; or how the last one ended, and begin. */
import { useState } from "react";
import { useStudioApi } from "@/app/_lib/studio-api";
import { attempt, useLoad } from "@/app/_lib/use-load";

export function TransactionPanel({ stamp, onChanged }: { stamp: number; onChanged(message: string): void }) {
  const api = useStudioApi();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState("");
  const status = useLoad(async () => {
    const s = await api.transaction();
    const ops = s.transaction ? (await api.history({ limit: 500, transaction_id: s.transaction.id })).entries : [];
    return { ...s, ops };
  }, [api, stamp]);
  const act = async (action: () => Promise<unknown>, done: string) => {
    if (await attempt(action, setProblem)) onChanged(done);
  };
  const s = status.data;
  if (!s) return <p className="loading">{status.error ?? "Loading…"}</p>;
  const tx = s.transaction;
  return (
    <div data-testid="transaction" data-status={s.status}>
      {tx ? (
        <>
          <p><span className="badge accent">open</span> <strong>{tx.name}</strong> <span className="muted small">since {new Date(tx.started_at).toLocaleTimeString("en-GB")} · {tx.operations} operation{tx.operations === 1 ? "" : "s"}{tx.rollback_on_error ? " · rolls back on error" : ""}</span></p>
          <ol className="tx-ops" data-testid="tx-ops">
            {[...s.ops].reverse().map((o) => <li key={o.seq}><code>{o.tool}</code> <span className="muted small">{o.app ?? ""} · {o.source ?? ""} · {new Date(o.at).toLocaleTimeString("en-GB")}</span></li>)}
          </ol>
          <div className="row">
            <button type="button" className="primary" onClick={() => void act(() => api.write("commit_transaction"), `Committed "${tx.name}"`)} data-testid="tx-commit">Commit</button>
            <button type="button" className="danger" onClick={() => window.confirm(`Roll back "${tx.name}"? Every scene returns to its state at begin.`) && void act(() => api.write("rollback_transaction"), `Rolled back "${tx.name}"`)} data-testid="tx-rollback">Roll back…</button>
          </div>
        </>
      ) : (
        <>
          <p className="muted">No transaction is open.{s.last && <> The last one, <strong>{s.last.name}</strong>, was {s.last.outcome.replace("_", " ")} ({s.last.operations} operation{s.last.operations === 1 ? "" : "s"}).</>}</p>
          <form className="row" onSubmit={(e) => { e.preventDefault(); void act(() => api.write("begin_transaction", { name }), `Began "${name}"`).then(() => setName("")); }}>
            <input aria-label="Transaction name" placeholder="Transaction name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} data-testid="tx-name" />
            <button type="submit" disabled={!name.trim()} data-testid="tx-begin">Begin</button>
          </form>
        </>
      )}
      {problem && <p className="notice error" role="alert">{problem}</p>}
    </div>
  );
}
