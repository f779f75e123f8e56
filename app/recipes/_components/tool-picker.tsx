"use client";
/**
 * Choose a tool: every tool of the catalogue grouped by group, filtered as you type; arrow keys
 * move, Enter picks, Escape closes.
 */
import { useMemo, useRef, useState } from "react";
import { groupTools, type ToolInfo } from "../_lib/tools";
import { Dialog } from "./dialog";

/** Props of ToolPicker. */
export interface ToolPickerProps {
  tools: readonly ToolInfo[];
  title: string;
  current?: string;
  onPick(tool: string): void;
  onClose(): void;
}

/** The tool picker dialog. */
export function ToolPicker({ tools, title, current, onPick, onClose }: ToolPickerProps) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const groups = useMemo(() => groupTools(tools, query), [tools, query]);
  const flat = useMemo(() => groups.flatMap((g) => g.tools), [groups]);
  const list = useRef<HTMLDivElement>(null);
  const move = (delta: number) => {
    const next = Math.max(0, Math.min(flat.length - 1, active + delta));
    setActive(next);
    list.current?.querySelector(`[data-index="${next}"]`)?.scrollIntoView({ block: "nearest" });
  };
  let index = -1;
  return (
    <Dialog title={title} onClose={onClose} className="tool-picker">
      <input
        type="search"
        className="tool-search"
        placeholder="Search tools, e.g. light, screenshot, version"
        aria-label="Search tools"
        aria-controls="tool-list"
        aria-activedescendant={flat[active] ? `tool-${flat[active].name}` : undefined}
        autoFocus
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") move(1);
          else if (e.key === "ArrowUp") move(-1);
          else if (e.key === "Enter" && flat[active]) onPick(flat[active].name);
          else return;
          e.preventDefault();
        }}
      />
      <div className="tool-list" id="tool-list" role="listbox" aria-label="Tools" ref={list}>
        {groups.length === 0 && <p className="muted">No tool matches “{query}”.</p>}
        {groups.map((group) => (
          <div key={group.group} role="group" aria-label={group.title}>
            <div className={`tool-group-title group-${group.group}`}>{group.title}</div>
            {group.tools.map((tool) => {
              index += 1;
              const i = index;
              return (
                <div
                  key={tool.name}
                  id={`tool-${tool.name}`}
                  role="option"
                  aria-selected={i === active}
                  data-index={i}
                  data-tool={tool.name}
                  className={`tool-option${i === active ? " is-active" : ""}${tool.name === current ? " is-current" : ""}`}
                  onMouseEnter={() => setActive(i)}
                  onClick={() => onPick(tool.name)}
                >
                  <code>{tool.name}</code>
                  <span className="tool-description">{tool.description}</span>
                </div>
              );
            })}
          </div>
        ))}
      </div>
    </Dialog>
  );
}
