"use client";
/**
 * The scene's objects as a tree (parents before children). Arrow keys move the selection; a
 * filter narrows a big scene, and at most MAX_ROWS rows are drawn so a 10,000-object scene stays quick.
 */
import { useMemo, useState, type KeyboardEvent } from "react";
import { childrenByParent, type ObjectView } from "../_lib/scene-model";
import type { Person } from "../../_lib/use-collab";
import { Initials } from "../../_components/presence-bar";

const MAX_ROWS = 500;

interface Row { object: ObjectView; depth: number }

function flatten(objects: readonly ObjectView[]): Row[] {
  const tree = childrenByParent(objects);
  const rows: Row[] = [];
  const seen = new Set<string>();
  const walk = (parent: string, depth: number) => {
    for (const o of tree.get(parent) ?? []) {
      if (seen.has(o.name)) continue;
      seen.add(o.name);
      rows.push({ object: o, depth });
      walk(o.name, depth + 1);
    }
  };
  walk("", 0);
  return rows;
}

interface Props {
  objects: readonly ObjectView[]; selected: string | null; onSelect: (name: string) => void;
  /** Who else has each object selected (presence), and who holds a lock on it. */
  here?: ReadonlyMap<string, Person[]>; lockedBy?: ReadonlyMap<string, string>;
}

export function ObjectTree({ objects, selected, onSelect, here, lockedBy }: Props) {
  const [filter, setFilter] = useState("");
  const rows = useMemo(() => {
    const all = flatten(objects);
    const f = filter.trim().toLowerCase();
    return f ? all.filter((r) => r.object.name.toLowerCase().includes(f)) : all;
  }, [objects, filter]);
  const shown = rows.slice(0, MAX_ROWS);

  const onKey = (e: KeyboardEvent) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    const i = shown.findIndex((r) => r.object.name === selected);
    const next = shown[Math.max(0, Math.min(shown.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)))];
    if (next) {
      onSelect(next.object.name);
      document.getElementById(`tree-${next.object.name}`)?.focus();
    }
  };

  return (
    <aside className="studio-tree" aria-label="Objects">
      <h2>Objects <span className="muted">{objects.length}</span></h2>
      <input type="search" placeholder="Filter" aria-label="Filter objects" value={filter} onChange={(e) => setFilter(e.target.value)} />
      <ul role="tree" aria-label="Scene objects" onKeyDown={onKey}>
        {shown.map(({ object: o, depth }) => (
          <li key={o.name} role="treeitem" aria-selected={o.name === selected} aria-level={depth + 1}>
            <button
              type="button" id={`tree-${o.name}`} className={o.name === selected ? "selected" : undefined}
              style={{ paddingLeft: 8 + depth * 14 }} onClick={() => onSelect(o.name)}
            >
              <span className={`kind kind-${o.kind}`}>{o.type}</span> {o.name}
              {lockedBy?.get(o.name) && <span className="lock-mark" title={`Locked by ${lockedBy.get(o.name)}`} aria-label={`locked by ${lockedBy.get(o.name)}`}>locked</span>}
              {here?.get(o.name)?.map((p) => <Initials key={p.session} person={p} />)}
            </button>
          </li>
        ))}
      </ul>
      {rows.length > MAX_ROWS && <p className="muted">{rows.length - MAX_ROWS} more: type in the filter to find them.</p>}
      {objects.length === 0 && <p className="muted">No objects in this scene yet: create one with <code>create_gameobject</code>, or run a recipe.</p>}
      {objects.length > 0 && rows.length === 0 && <p className="muted">No object matches “{filter.trim()}”.</p>}
    </aside>
  );
}
