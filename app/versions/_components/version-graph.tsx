"use client";
/**
 * The graph of branches and versions, newest first: one lane per branch, a dot per version, its
 * branch's head marked, and on top the working state of the current branch (what it was loaded
 * from, and whether it has unsaved changes). A listbox with one Tab stop: the arrow keys, Home
 * and End move the selection (the action bar works on it), Enter goes to the actions. Each row
 * also has a link to its compare page with the working state, one click away.
 */
import Link from "next/link";
import { useRef, type KeyboardEvent } from "react";
import type { Branch, Version } from "@/app/_lib/studio-api";
import { compareHref } from "../_lib/links";

const LANE = 16;
const COLORS = ["#f08a3c", "#5b9cf5", "#4cc38a", "#b07cf0", "#e76fa8", "#3cc4b5", "#d6c14a"];

export interface GraphProps {
  versions: Version[];
  branches: Branch[];
  current: string;
  selected?: string;
  onSelect(id: string): void;
  /** Enter on a row: take the keyboard to what can be done with it. */
  onActivate?(): void;
}

function Lanes({ lanes, dot, live, color }: { lanes: number; dot: number; live: boolean[]; color: (i: number) => string }) {
  return (
    // The lines run the row's whole height, which grows when a narrow row wraps.
    <span className="lanes" style={{ width: lanes * LANE }} aria-hidden="true">
      <svg width={lanes * LANE} height="100%">
        {live.map((on, i) => on && <line key={i} x1={i * LANE + 8} x2={i * LANE + 8} y1="0" y2="100%" stroke={color(i)} strokeWidth={2} opacity={0.6} />)}
        {dot >= 0 && <circle cx={dot * LANE + 8} cy={13} r={5} fill={color(dot)} />}
      </svg>
    </span>
  );
}

export function VersionGraph({ versions, branches, current, selected, onSelect, onActivate }: GraphProps) {
  const box = useRef<HTMLDivElement>(null);
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
  const ids = ["working", ...versions.map((v) => v.version_id)];
  // One Tab stop: the selected row (the working state when the selection is not listed).
  const focusable = ids.includes(selected ?? "") ? selected : "working";
  const move = (e: KeyboardEvent) => {
    const at = Math.max(0, ids.indexOf(selected ?? "working"));
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: ids.length - 1, PageDown: at + 10, PageUp: at - 10 }[e.key];
    if (to === undefined) {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        if (e.key === "Enter") onActivate?.();
      }
      return;
    }
    e.preventDefault();
    const next = ids[Math.max(0, Math.min(ids.length - 1, to))];
    onSelect(next);
    box.current?.querySelector<HTMLElement>(`[data-row="${next}"]`)?.focus();
  };
  const base = currentBranch?.working_base;
  return (
    <div ref={box} className="scroll-box graph" role="listbox" aria-label="Versions, newest first (arrow keys move, Enter goes to the actions)" data-testid="version-graph" onKeyDown={move}>
      <div className={`graph-row working${selected === "working" ? " is-selected" : ""}`} role="option" aria-selected={selected === "working"} tabIndex={focusable === "working" ? 0 : -1}
        onClick={() => onSelect("working")} data-row="working" data-testid="working-row">
        <Lanes lanes={order.length} dot={0} live={order.map((_, i) => i === 0)} color={color} />
        <span className="graph-id">working</span>
        <span className="graph-main">
          <span className="graph-name">Working state of <strong>{current}</strong></span>
          {currentBranch?.changed_since_base ? <span className="badge accent" data-testid="unsaved">unsaved changes</span> : <span className="badge ok">saved</span>}
          {base && <span className="graph-meta muted small" data-testid="working-base">{base === currentBranch?.head ? `at ${base}, the head` : `at ${base}${currentBranch?.head ? `, not the head ${currentBranch.head}` : ""}`}</span>}
        </span>
      </div>
      {versions.map((v, i) => {
        const live = order.map((n) => (first.get(n) ?? Infinity) <= i && i <= (last.get(n) ?? -1) || (n === current && i <= (last.get(n) ?? -1)));
        const parent = v.parent ? byId.get(v.parent) : undefined;
        const forked = v.parent && (parent ? parent.branch !== v.branch : last.get(v.branch) === i);
        return (
          <div key={v.version_id} className={`graph-row${selected === v.version_id ? " is-selected" : ""}`} role="option" aria-selected={selected === v.version_id}
            tabIndex={focusable === v.version_id ? 0 : -1} onClick={() => onSelect(v.version_id)} data-row={v.version_id} data-testid={`version-${v.version_id}`}>
            <Lanes lanes={order.length} dot={laneOf.get(v.branch) ?? -1} live={live} color={color} />
            <span className="graph-id">{v.version_id}</span>
            <span className="graph-main">
              <span className="graph-name" title={v.description || v.name}>{v.name}</span>
              {heads.get(v.version_id)?.map((b) => <span key={b} className="badge" style={{ color: color(laneOf.get(b) ?? 0) }}>head of {b}</span>)}
              {v.auto && <span className="badge">auto</span>}
              {v.version_id === base && <span className="badge">working state</span>}
              {forked && <span className="muted small">from {v.parent}</span>}
              <span className="graph-meta muted small">
                <span data-testid="version-by">{v.saved_by.by}</span> · <span>{v.branch}</span> · <span>{v.summary.objects} object{v.summary.objects === 1 ? "" : "s"}</span> · <time dateTime={v.created_at}>{new Date(v.created_at).toLocaleString("en-GB")}</time>
              </span>
            </span>
            {/* Not a Tab stop inside the listbox: the keyboard reaches the same page from the actions. */}
            <Link className="graph-link" href={compareHref(v.version_id, "working")} prefetch={false} tabIndex={-1} onClick={(e) => e.stopPropagation()}
              title={`Compare ${v.version_id} with the working state`} data-testid={`compare-${v.version_id}`}>compare</Link>
          </div>
        );
      })}
    </div>
  );
}
