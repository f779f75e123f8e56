"use client";
/** The operation log, newest first: time, tool, who ("Ada via Claude Desktop"), app, source and branch, filtered by tool, person, app and source. */
import { useState } from "react";
import { useStudioApi, type HistoryEntry } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";

const PAGE = 100;
const SOURCES = ["http", "mcp", "recipe", "live", "cli"];
const APPS = ["blender", "unity", "godot"];

function Entry({ e }: { e: HistoryEntry }) {
  return (
    <tr data-testid="op-row">
      <td className="muted">{e.seq}</td>
      <td title={e.at}>{new Date(e.at).toLocaleTimeString("en-GB")}</td>
      <td><code>{e.tool}</code>{e.transaction && <span className="muted small"> “{e.transaction.name}” · {e.transaction.operations} op{e.transaction.operations === 1 ? "" : "s"} · {e.transaction.outcome}</span>}</td>
      <td data-testid="op-by" title={e.actor.session ? `session ${e.actor.session}` : undefined}>{e.actor.by}</td>
      <td>{e.app ?? "—"}</td>
      <td>{e.source ? <span className="badge">{e.source}</span> : <span className="muted">—</span>}</td>
      <td className="muted">{e.branch}</td>
    </tr>
  );
}

export function OperationLog({ stamp }: { stamp: number }) {
  const api = useStudioApi();
  const [tool, setTool] = useState("");
  const [app, setApp] = useState("");
  const [source, setSource] = useState("");
  const [person, setPerson] = useState("");
  const [pages, setPages] = useState(1);
  const filter = { ...(tool.trim() ? { tool: tool.trim() } : {}), ...(app ? { app } : {}), ...(source ? { source } : {}), ...(person.trim() ? { person: person.trim() } : {}) };
  const log = useLoad(() => api.history({ limit: PAGE * pages, ...filter }), [api, tool, app, source, person, pages, stamp]);
  const entries = log.data?.entries ?? [];
  return (
    <>
      <div className="row" role="group" aria-label="Filters">
        <label>Tool <input type="search" value={tool} onChange={(e) => setTool(e.target.value)} placeholder="e.g. set_transform" size={16} data-testid="filter-tool" /></label>
        <label>Person <input type="search" value={person} onChange={(e) => setPerson(e.target.value)} placeholder="name" size={10} data-testid="filter-person" /></label>
        <label>App <select value={app} onChange={(e) => setApp(e.target.value)} data-testid="filter-app"><option value="">all</option>{APPS.map((a) => <option key={a}>{a}</option>)}</select></label>
        <label>Source <select value={source} onChange={(e) => setSource(e.target.value)} data-testid="filter-source"><option value="">all</option>{SOURCES.map((s) => <option key={s}>{s}</option>)}</select></label>
      </div>
      {log.error && <p className="notice error" role="alert">{log.error}</p>}
      <div className="scroll-box">
        <table className="data-table" data-testid="op-log">
          <thead><tr><th>#</th><th>Time</th><th>Tool</th><th>Who</th><th>App</th><th>Source</th><th>Branch</th></tr></thead>
          <tbody>{entries.map((e) => <Entry key={`${e.seq}-${e.tool}`} e={e} />)}</tbody>
        </table>
        {!log.loading && entries.length === 0 && <p className="empty">No operations{Object.keys(filter).length ? " match these filters" : " yet"}.</p>}
        {entries.length === PAGE * pages && <button type="button" onClick={() => setPages((p) => p + 1)}>Load older</button>}
      </div>
    </>
  );
}
