"use client";
/**
 * The recipe as YAML, live in both directions: canvas edits rewrite the text (after a short
 * pause, so typing stays fast on big recipes), and typing here updates the canvas as soon as the
 * text parses. While the text does not parse, the canvas keeps the last good recipe and the
 * panel says where the text is broken. Also: load a .yaml file, download the recipe.
 */
import { useEffect, useRef, useState } from "react";
import { draftFromYaml, type RecipeDraft, type YamlProblem } from "../_lib/draft";
import type { Issue } from "../_lib/issues";

/** Props of YamlPanel. */
export interface YamlPanelProps {
  /** The canvas as YAML (debounced). */
  text: string;
  issues: readonly Issue[];
  fileName: string;
  /** The draft the panel's edits start from (for uid matching). */
  current(): RecipeDraft;
  onApply(draft: RecipeDraft, coalesce?: string): void;
  onClose(): void;
}

function offsetOfLine(text: string, line: number): number {
  let offset = 0;
  for (let i = 1; i < line; i++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return offset;
}

/** The YAML panel. */
export function YamlPanel({ text, issues, fileName, current, onApply, onClose }: YamlPanelProps) {
  const [local, setLocal] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<YamlProblem | undefined>();
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLPreElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const focused = useRef(false);
  const shown = local ?? text;

  // The canvas changed: follow it, unless the user is typing or has broken text to fix.
  useEffect(() => {
    if (!focused.current && !problem) setLocal(undefined);
  }, [text, problem]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const apply = (value: string, coalesce?: string) => {
    const parsed = draftFromYaml(value, current());
    setProblem(parsed.problem);
    if (parsed.draft) onApply(parsed.draft, coalesce);
  };
  const jumpTo = (line: number) => {
    const el = area.current;
    if (!el) return;
    const start = offsetOfLine(shown, line);
    const end = shown.indexOf("\n", start);
    el.focus();
    el.setSelectionRange(start, end < 0 ? shown.length : end);
  };
  const load = async (file: File | undefined) => {
    if (!file) return;
    const content = await file.text();
    setLocal(content);
    apply(content);
  };
  const download = () => {
    const url = URL.createObjectURL(new Blob([shown], { type: "application/yaml" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: fileName });
    a.click();
    URL.revokeObjectURL(url);
  };
  const lines = shown.split("\n").length;
  return (
    <aside className="yaml-panel" aria-label="Recipe YAML">
      <header className="panel-head">
        <h2>YAML</h2>
        <label className="button-like">
          Load .yaml
          <input type="file" accept=".yaml,.yml,text/yaml,application/yaml" className="visually-hidden" onChange={(e) => void load(e.target.files?.[0])} data-testid="yaml-file" />
        </label>
        <button type="button" onClick={download}>Download</button>
        <button type="button" className="icon-button" aria-label="Close the YAML panel" onClick={onClose}>✕</button>
      </header>
      <div className="yaml-editor">
        <pre className="yaml-gutter" ref={gutter} aria-hidden>
          {Array.from({ length: lines }, (_, i) => `${i + 1}\n`).join("")}
        </pre>
        <textarea
          ref={area}
          className="yaml-text"
          aria-label="Recipe YAML text"
          spellCheck={false}
          wrap="off"
          value={shown}
          onFocus={() => (focused.current = true)}
          onBlur={() => {
            focused.current = false;
            if (!problem) setLocal(undefined);
          }}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
          onChange={(e) => {
            const value = e.target.value;
            setLocal(value);
            clearTimeout(timer.current);
            timer.current = setTimeout(() => apply(value, "yaml"), 250);
          }}
        />
      </div>
      {problem && (
        <div className="yaml-problem" role="alert" data-testid="yaml-problem">
          <button type="button" className="link-button" onClick={() => jumpTo(problem.line)}>Line {problem.line}</button>: {problem.message}. The canvas shows the last YAML that parsed.{" "}
          <button type="button" className="link-button" onClick={() => { setProblem(undefined); setLocal(undefined); }}>Discard my text</button>
        </div>
      )}
      {issues.length > 0 && (
        <ul className="yaml-issues" aria-label="Problems">
          {issues.map((issue, i) => (
            <li key={i}>
              <button type="button" className="link-button" onClick={() => jumpTo(issue.line)}>{issue.line}:{issue.column}</button> {issue.message}
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
