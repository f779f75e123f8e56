"use client";
/**
 * The graph of branches and versions, newest first: one lane per branch, a dot per version, its
 * branch's head marked, and on top the working state of the current branch (with unsaved changes
 * or not). Selecting a row picks the version the action bar works on.
 */
import type { Branch, Version } from "@/app/_lib/studio-api";

const LANE = 16;
const COLORS = ["#f08a3c", "#5b9cf5", "#4cc38a", "#b07cf0", "#e76fa8", "#3cc4b5", "#d6c14a"];

export interface GraphProps {
  versions: Version[];
  branches: Branch[];
  current: string;
  selected?: string;
  onSelect(id: string): void;
}

function Lanes({ lanes, dot, live, color }: { lanes: number; dot: number; live: boolean[]; color: (i: number) => string }) {
  return (
    <svg width={lanes * LANE} height={26} aria-hidden="true" className="lanes">
      {live.map((on, i) => on && <line key={i} x1={i * LANE + 8} x2={i * LANE + 8} y1={0} y2={26} stroke={color(i)} strokeWidth={2} opacity={0.6} />)}
      {dot >= 0 && <circle cx={dot * LANE + 8} cy={13} r={5} fill={color(dot)} />}
    </svg>
  );
}

export function VersionGraph({ versions, branches, current, selected, onSelect }: GraphProps) {
  // The current branch gets the first lane; the others follow in the order list_branches gives.
  const order = [current, ...branches.map((b) => b.name).filter((n) => n !== current)];
  const laneOf = new Map(order.map((n, i) => [n, i]));
  const color = (i: number) => COLORS[i % COLORS.length];
  const heads = new Map<string, string[]>();
  for (const b of branches) if (b.head) heads.set(b.head, [...(heads.get(b.head) ?? []), b.name]);
  // A lane runs from its branch's newest listed version down to its oldest one.
  const last = new Map<string, number>();
  versions.forEach((v, i) => last.set(v.branch, i));
  const first = new Map<string, number>();
  versions.forEach((v, i) => { if (!first.has(v.branch)) first.set(v.branch, i); });
  const currentBranch = branches.find((b) => b.name === current);
  const byId = new Map(versions.map((v) => [v.version_id, v]));
  return (
    <div className="scroll-box graph" role="listbox" aria-label="Versions, newest first" data-testid="version-graph">
      <div className={`graph-row working${selected === "working" ? " is-selected" : ""}`} role="option" aria-selected={selected === "working"} tabIndex={0}
        onClick={() => onSelect("working")} onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && onSelect("working")} data-testid="working-row">
        <Lanes lanes={order.length} dot={0} live={order.map((_, i) => i === 0)} color={color} />
        <span className="graph-id">working</span>
        <span className="graph-name">Working state of <strong>{current}</strong></span>
        {currentBranch?.unsaved_changes ? <span className="badge accent" data-testid="unsaved">unsaved changes</span> : <span className="badge ok">saved</span>}
      </div>
      {versions.map((v, i) => {
        const live = order.map((n) => (first.get(n) ?? Infinity) <= i && i <= (last.get(n) ?? -1) || (n === current && i <= (last.get(n) ?? -1)));
        const parent = v.parent ? byId.get(v.parent) : undefined;
        const forked = v.parent && (parent ? parent.branch !== v.branch : last.get(v.branch) === i);
        return (
          <div key={v.version_id} className={`graph-row${selected === v.version_id ? " is-selected" : ""}`} role="option" aria-selected={selected === v.version_id} tabIndex={0}
            onClick={() => onSelect(v.version_id)} onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && onSelect(v.version_id)} data-testid={`version-${v.version_id}`}>
            <Lanes lanes={order.length} dot={laneOf.get(v.branch) ?? -1} live={live} color={color} />
            <span className="graph-id">{v.version_id}</span>
            <span className="graph-name" title={v.description}>{v.name}</span>
            {heads.get(v.version_id)?.map((b) => <span key={b} className="badge" style={{ color: color(laneOf.get(b) ?? 0) }}>head of {b}</span>)}
            {v.auto && <span className="badge">auto</span>}
            {forked && <span className="muted small">from {v.parent}</span>}
            <span className="spacer" />
            <span className="muted small">{v.branch} · {v.summary.objects} object{v.summary.objects === 1 ? "" : "s"} · {new Date(v.created_at).toLocaleString("en-GB")}</span>
          </div>
        );
      })}
    </div>
  );
}
