"use client";
/**
 * Editors for single values: text, number, enum and boolean. Each accepts a `{{ placeholder }}`:
 * text and number boxes directly (suggestions from the page's placeholder list), enum and boolean
 * selects through the "{{ }}" switch, which turns them into a text box.
 */
import { useState } from "react";
import { formatField, hasPlaceholder, numberProblem, parseNumberField, parseTextField } from "../_lib/field-values";
import type { FieldSpec } from "../_lib/schema-form";
import { useFieldText } from "./use-field-text";

/** Id of the <datalist> of `{{ … }}` suggestions rendered once by the inspector. */
export const PLACEHOLDER_LIST_ID = "kiln-placeholders";

/** What every field editor receives. */
export interface FieldProps {
  spec: FieldSpec;
  value: unknown;
  onChange(value: unknown): void;
  /** DOM id of the main input, for its <label>. */
  id: string;
  /** Accessible name prefix for inputs without their own label (vector components). */
  label?: string;
}

/** A text box; "" removes an optional parameter. */
export function TextField({ spec, value, onChange, id, label }: FieldProps) {
  const [text, setText] = useFieldText(value, formatField, (t) => parseTextField(t, spec.required));
  return (
    <input
      id={id}
      type="text"
      aria-label={label}
      list={PLACEHOLDER_LIST_ID}
      value={text}
      placeholder={spec.default !== undefined && spec.default !== "" ? `default ${formatField(spec.default)}` : spec.required ? "required" : "optional"}
      onChange={(e) => {
        setText(e.target.value);
        onChange(parseTextField(e.target.value, spec.required));
      }}
    />
  );
}

/** A number box that also takes placeholders; shows why a value is not a number. */
export function NumberField({ spec, value, onChange, id, label }: FieldProps) {
  const [text, setText] = useFieldText(value, formatField, parseNumberField);
  const problem = numberProblem(value, spec);
  return (
    <span className="number-field">
      <input
        id={id}
        type="text"
        inputMode="decimal"
        list={PLACEHOLDER_LIST_ID}
        aria-label={label}
        aria-invalid={problem ? true : undefined}
        className={problem ? "is-invalid" : undefined}
        value={text}
        placeholder={spec.default !== undefined ? `default ${formatField(spec.default)}` : spec.required ? "required" : "optional"}
        title={problem ? `Expected ${problem}` : undefined}
        onChange={(e) => {
          setText(e.target.value);
          onChange(parseNumberField(e.target.value));
        }}
      />
    </span>
  );
}

/** A switch between a field's own editor and a text box for a placeholder. */
export function usePlaceholderMode(value: unknown): [boolean, (on: boolean) => void] {
  const [forced, setForced] = useState<boolean | undefined>(undefined);
  const auto = typeof value === "string" && hasPlaceholder(value);
  return [forced ?? auto, setForced];
}

/** The "{{ }}" button that switches a field to placeholder text and back. */
export function PlaceholderSwitch({ on, toggle, label }: { on: boolean; toggle(on: boolean): void; label: string }) {
  return (
    <button type="button" className={`placeholder-switch${on ? " is-on" : ""}`} aria-pressed={on} title={on ? "Use the field's editor" : "Use a {{ placeholder }}"} aria-label={`${label}: ${on ? "use the editor" : "use a placeholder"}`} onClick={() => toggle(!on)}>
      {"{{ }}"}
    </button>
  );
}

/** A select of the allowed values. */
export function EnumField({ spec, value, onChange, id }: FieldProps) {
  const known = typeof value === "string" && spec.options?.includes(value);
  return (
    <select id={id} value={known ? (value as string) : ""} onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value)}>
      <option value="">{value !== undefined && !known ? `${formatField(value)} (not allowed)` : spec.required && value === undefined ? "— choose —" : "— not set —"}</option>
      {spec.options?.map((option) => <option key={option} value={option}>{option}</option>)}
    </select>
  );
}

/** A yes/no select with "not set". */
export function BooleanField({ value, onChange, id }: FieldProps) {
  const current = value === true ? "true" : value === false ? "false" : "";
  return (
    <select id={id} value={current} onChange={(e) => onChange(e.target.value === "" ? undefined : e.target.value === "true")}>
      <option value="">— not set —</option>
      <option value="true">true</option>
      <option value="false">false</option>
    </select>
  );
}
