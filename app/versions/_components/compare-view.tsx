"use client";
/**
 * The compare page of two states: pickers for both sides (each change is a new address), the
 * two sides with preview and restore, then per app the changes and the renders compared at the
 * page's full width. A side that is the working state follows GET /events.
 */
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useState } from "react";
import { useStudioApi, type BranchList, type Diff, type Version, type VersionList } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import { compareHref } from "../_lib/links";
import { AppDiff, diffSummary } from "./diff-view";
import { RestoreButton, useTransactionGate, type Gate } from "./restore";

export interface CompareInitial { versions: VersionList; branches: BranchList; diff?: Diff; error?: string }

function SidePicker({ label, value, versions, onPick, testId }: { label: string; value: string; versions: Version[]; onPick(id: string): void; testId: string }) {
  const listed = value === "working" || versions.some((v) => v.version_id === value);
  return (
    <label className="compare-pick">
      <span className="muted small">{label}</span>
      <select value={value} onChange={(e) => onPick(e.target.value)} data-testid={testId}>
        <option value="working">working state</option>
        {!listed && <option value={value}>{value}</option>}
        {versions.map((v) => <option key={v.version_id} value={v.version_id}>{v.version_id} · {v.name}</option>)}
      </select>
    </label>
  );
}

function Side({ id, version, role, gate, onRestored }: { id: string; version?: Version; role: string; gate: Gate; onRestored(m: string): void }) {
  return (
    <div className="compare-side" data-testid={`side-${role}`}>
      <div className="muted small">{role}</div>
      {id === "working" ? <strong>The working state</strong> : (
        <>
          <strong><Link href={`/versions/${id}`} prefetch={false}>{id}</Link>{version ? ` · ${version.name}` : ""}</strong>
          {version && <div className="muted small">{version.branch} · {version.summary.objects} objects · <time dateTime={version.created_at}>{new Date(version.created_at).toLocaleString("en-GB")}</time>{version.auto ? " · auto-save" : ""}</div>}
          <div className="row"><RestoreButton id={id} name={version?.name} gate={gate} onRestored={onRestored} /></div>
        </>
      )}
    </div>
  );
}

export function CompareView({ from, to, initial }: { from: string; to: string; initial: CompareInitial }) {
  const api = useStudioApi();
  const router = useRouter();
  const [stamp, setStamp] = useState(0);
  const [message, setMessage] = useState<string>();
  const bump = useCallback(() => setStamp((n) => n + 1), []);
  useStudioEvents(bump, ["operation", "version", "branch", "transaction"]);
  const gate = useTransactionGate(stamp);
  const live = from === "working" || to === "working" ? stamp : 0;
  const diff = useLoad(() => api.diff(from, to), [api, from, to, live], initial.diff);
  const versions = useLoad(() => api.listVersions(100), [api, stamp], initial.versions);
  const list = versions.data?.versions ?? [];
  const find = (id: string) => list.find((v) => v.version_id === id);
  const go = (f: string, t: string) => router.push(compareHref(f, t));
  const restored = (m: string) => {
    setMessage(m);
    bump();
  };
  const error = diff.error ?? (diff.data ? undefined : initial.error);
  return (
    <main className="page-wide compare-page">
      <div className="page-head">
        <h1>Compare <span className="h-mono">{from}</span> … <span className="h-mono">{to}</span></h1>
        <Link href="/versions" prefetch={false} className="small">All versions</Link>
        {message && <span className="badge ok" role="status" data-testid="message">{message}</span>}
      </div>
      <section className="panel compare-head" aria-label="The two sides">
        <div className="row compare-pickers">
          <SidePicker label="Before" value={from} versions={list} onPick={(id) => go(id, to)} testId="pick-from" />
          <button type="button" onClick={() => go(to, from)} title="Swap the two sides" aria-label="Swap before and after" data-testid="swap">⇄</button>
          <SidePicker label="After" value={to} versions={list} onPick={(id) => go(from, id)} testId="pick-to" />
        </div>
        <div className="compare-sides">
          <Side id={from} version={find(from)} role="before" gate={gate} onRestored={restored} />
          <Side id={to} version={find(to)} role="after" gate={gate} onRestored={restored} />
        </div>
      </section>
      {error && <p className="notice error" role="alert">{error}</p>}
      {!diff.data && !error && <p className="loading">Comparing {from} and {to}…</p>}
      {diff.data && (
        <section className="panel" aria-labelledby="changes-title" data-testid="diff">
          <h2 id="changes-title">Changes</h2>
          <p>{diffSummary(diff.data)}</p>
          {Object.entries(diff.data.apps).map(([app, part]) => <AppDiff key={app} app={app} part={part} from={from} to={to} stamp={stamp} heading="h3" />)}
        </section>
      )}
    </main>
  );
}
