"use client";
/**
 * Editors for mappings and free-form values: vectors as x/y/z boxes, colours as a colour picker
 * plus r/g/b/a boxes (each box takes a number or a placeholder), nested objects as sub-forms,
 * and anything else as YAML text. Components are written in x, y, z / r, g, b, a order, and a
 * vector whose boxes are all emptied is removed.
 */
import { isRecord } from "../_lib/draft";
import { withKey } from "../_lib/edits";
import { fromHex, fromYamlText, toHex, toYamlText } from "../_lib/field-values";
import type { FieldSpec } from "../_lib/schema-form";
import { FieldEditor } from "./field-editor";
import { NumberField, type FieldProps } from "./scalar-fields";
import { useFieldText } from "./use-field-text";

const numberSpec = (key: string): FieldSpec => ({ key, label: key, kind: "number", required: false });
const unitSpec = (key: string): FieldSpec => ({ key, label: key, kind: "number", required: false, minimum: 0, maximum: 1 });

function setComponent(value: unknown, key: string, component: unknown, order: string[]) {
  const next = withKey(isRecord(value) ? value : {}, key, component, order);
  return Object.keys(next).length === 0 ? undefined : next;
}

/** x / y / z boxes. */
export function VectorField({ spec, value, onChange, id }: FieldProps) {
  const order = spec.components ?? ["x", "y", "z"];
  const v = isRecord(value) ? value : {};
  return (
    <span className="vector-field" role="group" aria-label={spec.label}>
      {order.map((key, i) => (
        <label key={key} className="component">
          <span aria-hidden>{key}</span>
          <NumberField spec={numberSpec(key)} id={i === 0 ? id : `${id}-${key}`} label={`${spec.label} ${key}`} value={v[key]} onChange={(c) => onChange(setComponent(value, key, c, order))} />
        </label>
      ))}
    </span>
  );
}

/** A colour picker for r, g, b plus r / g / b / a boxes. */
export function ColorField({ spec, value, onChange, id }: FieldProps) {
  const order = ["r", "g", "b", "a"];
  const v = isRecord(value) ? value : {};
  return (
    <span className="color-field" role="group" aria-label={spec.label}>
      <input
        id={id}
        type="color"
        aria-label={`${spec.label} colour`}
        value={toHex(v)}
        onChange={(e) => {
          let next: Record<string, unknown> = v;
          for (const [k, c] of Object.entries(fromHex(e.target.value))) next = withKey(next, k, c, order);
          onChange(next);
        }}
      />
      {order.map((key) => (
        <label key={key} className="component">
          <span aria-hidden>{key}</span>
          <NumberField spec={unitSpec(key)} id={`${id}-${key}`} label={`${spec.label} ${key === "a" ? "alpha" : key}`} value={v[key]} onChange={(c) => onChange(setComponent(value, key, c, order))} />
        </label>
      ))}
    </span>
  );
}

/** A nested object: its own fields, indented. */
export function ObjectField({ spec, value, onChange, id }: FieldProps) {
  const v = isRecord(value) ? value : {};
  const order = (spec.fields ?? []).map((f) => f.key);
  return (
    <div className="object-field" role="group" aria-label={spec.label}>
      {(spec.fields ?? []).map((field) => (
        <FieldEditor key={field.key} spec={field} id={`${id}-${field.key}`} value={v[field.key]} onChange={(c) => onChange(setComponent(value, field.key, c, order))} />
      ))}
    </div>
  );
}

/** Any value as YAML text (flow style); shows a parse error instead of storing broken text. */
export function YamlField({ value, onChange, id }: FieldProps) {
  const [text, setText] = useFieldText(value, toYamlText, (t) => fromYamlText(t).value);
  const problem = fromYamlText(text).error;
  return (
    <span className="yaml-field">
      <textarea
        id={id}
        rows={Math.min(6, Math.max(1, text.split("\n").length))}
        spellCheck={false}
        value={text}
        aria-invalid={problem ? true : undefined}
        placeholder="YAML, e.g. [a, b] or { key: value }"
        onChange={(e) => {
          setText(e.target.value);
          const parsed = fromYamlText(e.target.value);
          if (!parsed.error) onChange(parsed.value);
        }}
      />
      {problem && <span className="field-error">{problem}</span>}
    </span>
  );
}
