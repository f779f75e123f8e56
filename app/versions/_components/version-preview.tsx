"use client";
/**
 * A version previewed without restoring it: its details, links to compare it, restore (asking
 * first, off while a transaction is open), and per app its scene drawn by Kiln's renderer with
 * the scene's objects listed.
 */
import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { authHeaders } from "@/app/recipes/_lib/trpc";
import type { BranchList, Version } from "@/app/_lib/studio-api";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import { formatValue } from "../_lib/diff-words";
import { compareHref } from "../_lib/links";
import { RestoreButton, useTransactionGate } from "./restore";

/** One app's scene in the version, as the page lists it. */
export interface PreviewApp { app: string; scene: string; active: string; scenes: string[]; total: number; objects: Record<string, unknown>[]; materials: number }

/** The render of one scene of the version (fetched with the token when there is one). */
function SceneRender({ id, app, scene }: { id: string; app: string; scene: string }) {
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let gone = false, made: string | undefined;
    fetch(`/versions/${id}/render?app=${app}&scene=${encodeURIComponent(scene)}&width=960&height=540`, { headers: authHeaders() })
      .then(async (r) => {
        if (!r.ok) throw new Error((await r.json().catch(() => null))?.error?.message ?? `render failed (${r.status})`);
        made = URL.createObjectURL(await r.blob());
        if (!gone) setUrl(made);
      })
      .catch((e: Error) => !gone && setError(e.message));
    return () => {
      gone = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [id, app, scene]);
  if (error) return <p className="field-error">{error}</p>;
  return url
    ? <img className="preview-render" src={url} width={960} height={540} alt={`${app}'s scene ${scene} at ${id}`} data-testid={`preview-render-${app}`} />
    : <div className="preview-render loading" aria-busy="true">rendering…</div>;
}

const cell = (o: Record<string, unknown>, k: string) => formatValue(o[k]);
const what = (o: Record<string, unknown>) => {
  const light = o.light as { type?: string; intensity?: number } | undefined;
  return light ? `${light.type ?? "light"} light, intensity ${formatValue(light.intensity)}` : o.material ? `material ${String(o.material)}` : "";
};

export function VersionPreview({ version: v, branches, apps }: { version: Version; branches: BranchList; apps: PreviewApp[] }) {
  const [stamp, setStamp] = useState(0);
  const [message, setMessage] = useState<string>();
  const bump = useCallback(() => setStamp((n) => n + 1), []);
  useStudioEvents(bump, ["transaction", "version", "branch"]);
  const gate = useTransactionGate(stamp);
  const heads = branches.branches.filter((b) => b.head === v.version_id).map((b) => b.name);
  const current = branches.branches.find((b) => b.current);
  return (
    <main className="page-wide version-page">
      <div className="page-head">
        <h1><span className="h-mono">{v.version_id}</span> · {v.name}</h1>
        {heads.map((b) => <span key={b} className="badge">head of {b}</span>)}
        {v.auto && <span className="badge">auto-save</span>}
        {current?.working_base === v.version_id && <span className="badge">the working state is at this version</span>}
        {message && <span className="badge ok" role="status" data-testid="message">{message}</span>}
      </div>
      <section className="panel" aria-label="About this version">
        <dl className="kv">
          <dt>Branch</dt><dd>{v.branch}</dd>
          <dt>Parent</dt><dd>{v.parent ? <Link href={`/versions/${v.parent}`} prefetch={false}>{v.parent}</Link> : "none (the first version)"}</dd>
          <dt>Saved by</dt><dd data-testid="version-saved-by">{v.saved_by.by}</dd>
          <dt>Saved</dt><dd><time dateTime={v.created_at}>{new Date(v.created_at).toLocaleString("en-GB")}</time></dd>
          <dt>Content</dt><dd>{v.summary.objects} object{v.summary.objects === 1 ? "" : "s"}, {v.summary.changes} changed record{v.summary.changes === 1 ? "" : "s"} since its parent</dd>
          {v.description && <><dt>Description</dt><dd>{v.description}</dd></>}
        </dl>
        <p className="muted small">A preview: nothing is restored. The working state stays as it is until you restore.</p>
        <div className="row">
          <Link className="button-like" href={compareHref(v.version_id, "working")} prefetch={false} data-testid="compare-working">Compare with working</Link>
          {v.parent && <Link className="button-like" href={compareHref(v.parent, v.version_id)} prefetch={false} data-testid="compare-parent">Changes since {v.parent}</Link>}
          <RestoreButton id={v.version_id} name={v.name} gate={gate} onRestored={(m) => { setMessage(m); bump(); }} />
        </div>
      </section>
      {/* Apps whose scene holds something first; an app with one empty scene is a line at the end. */}
      {apps.filter((a) => a.total > 0 || a.scenes.length > 1).map((a) => (
        <section key={a.app} className="panel preview-app" aria-labelledby={`app-${a.app}`} data-testid={`preview-${a.app}`}>
          <h2 id={`app-${a.app}`}>{a.app}<span className="muted"> · {a.scene}{a.scene === a.active ? " (active scene)" : ""}</span></h2>
          {a.scenes.length > 1 && (
            <nav className="row small" aria-label={`Scenes of ${a.app}`}>
              {a.scenes.map((s) => s === a.scene
                ? <strong key={s} aria-current="page">{s}</strong>
                : <Link key={s} href={`/versions/${v.version_id}?app=${a.app}&scene=${encodeURIComponent(s)}`} prefetch={false} scroll={false}>{s}</Link>)}
            </nav>
          )}
          <div className="preview-body">
            <SceneRender id={v.version_id} app={a.app} scene={a.scene} />
            <div className="table-scroll">
              <table className="data-table" data-testid={`preview-objects-${a.app}`}>
                <thead><tr><th>Object</th><th>Type</th><th>Position</th><th>Rotation</th><th>Scale</th><th>More</th></tr></thead>
                <tbody>
                  {a.objects.map((o) => (
                    <tr key={String(o.name)}>
                      <td><strong>{String(o.name)}</strong>{o.parent ? <span className="muted small"> in {String(o.parent)}</span> : null}</td>
                      <td>{String(o.type)}</td><td className="mono">{cell(o, "position")}</td><td className="mono">{cell(o, "rotation")}</td><td className="mono">{cell(o, "scale")}</td>
                      <td className="small">{what(o)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {a.total === 0 && <p className="empty">No objects in this scene.</p>}
              {a.total > a.objects.length && <p className="muted small">and {a.total - a.objects.length} more objects.</p>}
              <p className="muted small">{a.materials} material{a.materials === 1 ? "" : "s"} in {a.app}.</p>
            </div>
          </div>
        </section>
      ))}
      {apps.some((a) => a.total === 0 && a.scenes.length <= 1) && (
        <p className="muted">{apps.filter((a) => a.total === 0 && a.scenes.length <= 1).map((a) => `${a.app}: ${a.scene}, no objects`).join(" · ")}.</p>
      )}
    </main>
  );
}
