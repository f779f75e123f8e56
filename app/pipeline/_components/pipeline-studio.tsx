"use client";
/** /pipeline: each app (embedded or live), transfers with status, warnings, durations and files, and a form to start one. */
import { useCallback, useState } from "react";
import { useStudioApi, type PipelineStatus } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import { TransferForm } from "./transfer-form";
import { EditGate } from "../../_lib/viewer";

type App = PipelineStatus["apps"][number];

function Connection({ app }: { app: App }) {
  if (app.connection === "live" && app.live)
    return <><span className="badge ok">live</span> <span className="muted small">{app.live.app_version} · {app.live.file || "unsaved file"} · since {new Date(app.live.since).toLocaleTimeString("en-GB")}</span></>;
  if (app.connection === "disconnected") return <><span className="badge bad">disconnected</span> <span className="muted small">since {app.disconnected_since && new Date(app.disconnected_since).toLocaleTimeString("en-GB")}</span></>;
  return <span className="badge">embedded</span>;
}

const bytes = (n: number | null | undefined) => (n == null ? "" : n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

export function PipelineStudio() {
  const api = useStudioApi();
  const [stamp, setStamp] = useState(0);
  const [message, setMessage] = useState<string>();
  const bump = useCallback(() => setStamp((n) => n + 1), []);
  useStudioEvents(bump, ["operation", "transfer"]);
  const status = useLoad(() => api.pipeline(50), [api, stamp]);
  const s = status.data;
  return (
    <main className="page-wide pipeline-page">
      <div className="page-head">
        <h1>Pipeline</h1>
        <span className="muted">{s ? `${s.total_transfers} transfer${s.total_transfers === 1 ? "" : "s"} · ${s.workers.jobs}/${s.workers.max_jobs} jobs` : "loading…"}</span>
        {message && <span className="badge ok" role="status" data-testid="message">{message}</span>}
      </div>
      {status.error && <p className="notice error" role="alert">{status.error}</p>}
      <div className="grid apps-grid">
        {s?.apps.map((a) => (
          <section className="card" key={a.app} data-testid={`app-${a.app}`}>
            <h3>{a.app}</h3>
            <p><Connection app={a} /></p>
            <dl className="kv">
              <dt>Active scene</dt><dd>{a.active_scene}</dd>
              <dt>Scenes</dt><dd>{a.scenes}</dd>
              <dt>Objects</dt><dd>{a.objects}</dd>
              <dt>Sends to</dt><dd>{Object.entries(a.targets).map(([t, f]) => `${t} (${f.join(", ")})`).join("; ") || "—"}</dd>
            </dl>
            <a href={`/scene?app=${a.app}`}>Open in the scene view</a>
          </section>
        ))}
      </div>
      <div className="panels">
        <section className="panel" aria-labelledby="transfers-title">
          <h2 id="transfers-title">Transfers</h2>
          <table className="data-table" data-testid="transfers">
            <thead><tr><th>Started</th><th>Object</th><th>Path</th><th>Status</th><th>Duration</th><th>File</th></tr></thead>
            <tbody>
              {s?.in_progress.map((t) => (
                <tr key={t.transfer_id}><td>{new Date(t.started_at).toLocaleTimeString("en-GB")}</td><td>{t.asset}</td><td>{t.source_app} → {t.target_app} · {t.format}</td><td><span className="badge accent">{t.stage}</span></td><td /><td /></tr>
              ))}
              {s?.recent.map((t) => {
                const error = t.error as { code?: string; message?: string } | null;
                return (
                  <tr key={t.transfer_id} data-testid="transfer-row">
                    <td title={t.started_at}>{new Date(t.started_at).toLocaleTimeString("en-GB")}</td>
                    <td><strong>{t.asset}</strong></td>
                    <td>{t.source_app} → {t.target_app} · {t.format}</td>
                    <td>
                      <span className={`badge ${t.status === "succeeded" ? "ok" : t.status === "failed" ? "bad" : ""}`}>{t.status}</span>
                      {t.warnings.length > 0 && <details><summary className="small">{t.warnings.length} warning{t.warnings.length === 1 ? "" : "s"}</summary><ul className="small">{t.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul></details>}
                      {error && <div className="field-error small">{error.code}: {error.message}</div>}
                    </td>
                    <td>{t.duration_ms == null ? "" : `${t.duration_ms} ms`}</td>
                    <td>{t.file?.bytes != null && t.status === "succeeded" ? <a href={`/transfers/${t.transfer_id}/file`} download data-testid="transfer-download">{t.file.path.split(/[\\/]/).pop()}</a> : null} <span className="muted small">{bytes(t.file?.bytes)}</span></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {s && !s.recent.length && !s.in_progress.length && <p className="empty">No transfer yet: start one with the form.</p>}
        </section>
        <section className="panel" aria-labelledby="start-title">
          <h2 id="start-title">Start a transfer</h2>
          <EditGate label="Start a transfer (read-only)"><TransferForm stamp={stamp} onDone={(m) => { setMessage(m); bump(); }} /></EditGate>
        </section>
      </div>
    </main>
  );
}
