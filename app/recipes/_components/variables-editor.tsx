"use client";
/**
 * The recipe's variables: name, type and default per row, in order. A rename is applied once the
 * new name is a usable, unused variable name (until then the row says what is wrong), so typing
 * a name never merges two variables or writes a key the engine refuses.
 */
import { useState } from "react";
import { isVariableName } from "@/server/recipes/schema";
import { setVariables } from "../_lib/edits";
import type { RecipeDraft } from "../_lib/draft";
import { convertVariable, variableType, type VariableType } from "../_lib/summary";
import { NumberField, TextField } from "./scalar-fields";

/** Props of VariablesEditor. */
export interface VariablesEditorProps {
  entries: [string, unknown][];
  edit(change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string): void;
}

function NameInput({ name, taken, onRename, index }: { name: string; taken: (n: string) => boolean; onRename(n: string): void; index: number }) {
  const [text, setText] = useState(name);
  const [shownFor, setShownFor] = useState(name);
  if (shownFor !== name) {
    setShownFor(name);
    setText(name);
  }
  const problem = text === name ? undefined : !isVariableName(text) ? "letters, digits and _, not starting with a digit" : taken(text) ? "another variable has this name" : undefined;
  return (
    <span className="var-name">
      <input
        type="text"
        aria-label={`Variable ${index + 1} name`}
        value={text}
        aria-invalid={problem ? true : undefined}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value !== name && isVariableName(e.target.value) && !taken(e.target.value)) onRename(e.target.value);
        }}
        onBlur={() => setText(name)}
      />
      {problem && <span className="field-error">{problem}</span>}
    </span>
  );
}

/** The variables table of the recipe inspector. */
export function VariablesEditor({ entries, edit }: VariablesEditorProps) {
  const write = (next: [string, unknown][], coalesce?: string) => edit((d) => setVariables(d, next), coalesce);
  const replace = (i: number, entry: [string, unknown], coalesce?: string) => write(entries.map((e, j) => (j === i ? entry : e)), coalesce);
  const add = () => {
    let n = entries.length + 1;
    while (entries.some(([name]) => name === `var_${n}`)) n++;
    write([...entries, [`var_${n}`, ""]]);
  };
  return (
    <div className="variables-editor">
      {entries.length === 0 && <p className="muted">No variables. Steps can use <code>{"{{ name }}"}</code> once you add one.</p>}
      {entries.map(([name, value], i) => {
        const type = variableType(value);
        const spec = { key: name, label: name, kind: "string" as const, required: true };
        return (
          <div className="var-row" key={`${i}`} data-testid="variable-row">
            <NameInput index={i} name={name} taken={(n) => entries.some(([other], j) => j !== i && other === n)} onRename={(n) => replace(i, [n, value], `var-name:${i}`)} />
            <select aria-label={`Variable ${name} type`} value={type} onChange={(e) => replace(i, [name, convertVariable(value, e.target.value as VariableType)])}>
              <option value="text">text</option>
              <option value="number">number</option>
              <option value="boolean">yes/no</option>
            </select>
            {type === "boolean" ? (
              <input type="checkbox" aria-label={`Variable ${name} default`} checked={value === true} onChange={(e) => replace(i, [name, e.target.checked])} />
            ) : type === "number" ? (
              // Only numbers are stored: a half-typed "1e" or "-" waits in the box until it is one.
              <NumberField spec={{ ...spec, kind: "number" }} id={`var-${i}-value`} label={`Variable ${name} default`} value={value} onChange={(v) => typeof v === "number" && replace(i, [name, v], `var-value:${i}`)} />
            ) : (
              <TextField spec={spec} id={`var-${i}-value`} label={`Variable ${name} default`} value={value} onChange={(v) => replace(i, [name, v ?? ""], `var-value:${i}`)} />
            )}
            <button type="button" className="icon-button" aria-label={`Remove variable ${name}`} title="Remove" onClick={() => write(entries.filter((_, j) => j !== i))}>✕</button>
          </div>
        );
      })}
      <button type="button" onClick={add} data-testid="add-variable">+ Add variable</button>
    </div>
  );
}
