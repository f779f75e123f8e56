"use client";
/**
 * A step's condition, checked as you type with the same CEL parser the engine uses
 * (server/recipes/condition.ts), so a syntax error shows at once with where it is. Whether the
 * variables and steps it names exist is checked by validation (its messages appear below too).
 * The parser is loaded when the first condition field appears, not with the page: opening a
 * recipe does not wait for it.
 */
import { useEffect, useMemo, useState } from "react";
import type { compileCondition } from "@/server/recipes/condition";
import { useFieldText } from "./use-field-text";

type Compile = typeof compileCondition;
let loaded: Compile | undefined;

function useCompiler(): Compile | undefined {
  const [compile, setCompile] = useState<Compile | undefined>(() => loaded);
  useEffect(() => {
    if (loaded) return;
    let live = true;
    void import("@/server/recipes/condition").then((m) => {
      loaded = m.compileCondition;
      if (live) setCompile(() => m.compileCondition);
    });
    return () => void (live = false);
  }, []);
  return compile;
}

const asText = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));
const fromText = (t: string) => (t.trim() === "" ? undefined : t);

/** The condition editor with live syntax checking. */
export function ConditionField({ id, value, onChange, errors, hint }: { id: string; value: unknown; onChange(v: string | undefined): void; errors: string[]; hint: string }) {
  const [text, setText] = useFieldText(value, asText, fromText);
  const compile = useCompiler();
  const check = useMemo(() => (text.trim() === "" || !compile ? undefined : compile(text)), [text, compile]);
  const syntax = check && !check.ok ? `${check.message} (at character ${check.offset + 1})` : undefined;
  return (
    <div className={`field field-condition${syntax || errors.length ? " has-errors" : ""}`}>
      <div className="field-label">
        <label htmlFor={id}>Condition</label>
        {check?.ok && <span className="ok-mark" data-testid="condition-ok">✓ valid CEL</span>}
      </div>
      <textarea
        id={id}
        rows={2}
        spellCheck={false}
        className="mono"
        value={text}
        placeholder='e.g. vars.ground_size > 10 && steps.create_ground.status == "succeeded"'
        aria-invalid={syntax ? true : undefined}
        aria-describedby={`${id}-help`}
        onChange={(e) => {
          setText(e.target.value);
          onChange(fromText(e.target.value));
        }}
      />
      <div className="field-help" id={`${id}-help`}>{hint}</div>
      {syntax && <div className="field-error" role="alert" data-testid="condition-error">{syntax}</div>}
      {errors.map((message, i) => <div className="field-error" key={i} role="alert">{message}</div>)}
    </div>
  );
}
