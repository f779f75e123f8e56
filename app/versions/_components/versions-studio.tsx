"use client";
/**
 * /versions: the graph of branches and versions with save / restore / branch / switch / delete,
 * the unsaved changes (the working state against the version it was loaded from) with a link to
 * any comparison's own page, the open transaction and the operation log. Everything reloads after
 * an action on this page and whenever another client changes something (the /events stream).
 */
import Link from "next/link";
import { useCallback, useState } from "react";
import { useStudioApi, type BranchList as Branches, type Diff, type VersionList } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import { compareHref } from "../_lib/links";
import { BranchList } from "./branch-list";
import { DiffView } from "./diff-view";
import { OperationLog } from "./operation-log";
import { useTransactionGate } from "./restore";
import { TransactionPanel } from "./transaction-panel";
import { VersionActions } from "./version-actions";
import { VersionGraph } from "./version-graph";

import { SHOWN } from "./limits";
import { EditGate } from "../../_lib/viewer";

/** What the server rendered the page with. */
export interface VersionsInitial { versions: VersionList; branches: Branches; diff?: Diff }

export function VersionsStudio({ initial }: { initial?: VersionsInitial }) {
  const api = useStudioApi();
  const [stamp, setStamp] = useState(0);
  const [shown, setShown] = useState(SHOWN);
  const [selected, setSelected] = useState("working");
  const [message, setMessage] = useState<string>();
  const bump = useCallback(() => setStamp((n) => n + 1), []);
  useStudioEvents(bump, ["operation", "version", "branch", "transaction"]);
  const gate = useTransactionGate(stamp);
  const data = useLoad(async () => {
    const [versions, branches] = await Promise.all([api.listVersions(Math.min(shown, 500), 0), api.listBranches()]);
    // Past 500, further pages: list_versions caps a page at 500.
    for (let offset = 500; offset < shown && offset < versions.total; offset += 500)
      versions.versions.push(...(await api.listVersions(Math.min(500, shown - offset), offset)).versions);
    return { versions, branches };
  }, [api, shown, stamp], initial && { versions: initial.versions, branches: initial.branches });
  const changed = (m: string) => {
    setMessage(m);
    bump();
  };
  const d = data.data;
  const branch = d?.branches.branches.find((b) => b.current);
  // The unsaved changes: the working state against the version it was saved as or restored from.
  const base = branch?.working_base ?? undefined;
  const focusActions = () => document.querySelector<HTMLElement>(".version-actions a, .version-actions input")?.focus();
  return (
    <main className="page-wide versions-page">
      <div className="page-head">
        <h1>Versions</h1>
        <span className="muted">{d ? `${d.versions.total} version${d.versions.total === 1 ? "" : "s"} · ${d.branches.branches.length} branch${d.branches.branches.length === 1 ? "" : "es"} · current branch ${d.branches.current}` : "loading…"}</span>
        {message && <span className="badge ok" role="status" data-testid="message">{message}</span>}
      </div>
      {data.error && <p className="notice error" role="alert">{data.error}</p>}
      <div className="panels">
        <div>
          <section className="panel" aria-labelledby="graph-title">
            <h2 id="graph-title">Branches and versions</h2>
            {d && <VersionGraph versions={d.versions.versions} branches={d.branches.branches} current={d.branches.current} selected={selected} onSelect={setSelected} onActivate={focusActions} />}
            {d && d.versions.versions.length < d.versions.total && (
              <button type="button" onClick={() => setShown((n) => n + SHOWN)}>Show older versions ({d.versions.total - d.versions.versions.length} more)</button>
            )}
            <VersionActions selected={selected} version={d?.versions.versions.find((v) => v.version_id === selected)} gate={gate} onChanged={changed} />
          </section>
          <section className="panel" aria-labelledby="diff-title">
            <h2 id="diff-title">Unsaved changes {base && <span className="muted">{base} → working</span>}</h2>
            {base && <p className="small"><Link href={compareHref(base, "working")} prefetch={false} data-testid="open-compare">Open as a page</Link> (its own address, with swipe and onion skin)</p>}
            {base
              ? <DiffView from={base} to="working" stamp={stamp} initial={initial?.diff?.from === base && initial.diff.to === "working" ? initial.diff : undefined} />
              : <p className="empty">Save a version; then what changed since shows here, and every version has a compare page.</p>}
          </section>
        </div>
        <div>
          <section className="panel" aria-labelledby="branches-title">
            <h2 id="branches-title">Branches</h2>
            {d && <BranchList branches={d.branches.branches} gate={gate} onChanged={changed} />}
          </section>
          <section className="panel" aria-labelledby="tx-title">
            <h2 id="tx-title">Transaction</h2>
            <EditGate label="Transaction (read-only)"><TransactionPanel stamp={stamp} onChanged={changed} /></EditGate>
          </section>
          <section className="panel" aria-labelledby="log-title">
            <h2 id="log-title">Operation log</h2>
            <OperationLog stamp={stamp} />
          </section>
        </div>
      </div>
    </main>
  );
}
