"use client";
/**
 * One labelled field of a param form: picks the editor for the field's kind, offers the "{{ }}"
 * placeholder switch where the editor cannot take text, and shows the field's description and
 * any validation message for it.
 */
import { hasPlaceholder } from "../_lib/field-values";
import type { FieldSpec } from "../_lib/schema-form";
import { ColorField, ObjectField, VectorField, YamlField } from "./composite-fields";
import { BooleanField, EnumField, NumberField, PlaceholderSwitch, TextField, usePlaceholderMode, type FieldProps } from "./scalar-fields";

const EDITORS = { string: TextField, number: NumberField, enum: EnumField, boolean: BooleanField, vector: VectorField, color: ColorField, object: ObjectField, yaml: YamlField };
const SWITCHABLE = new Set(["enum", "boolean", "vector", "color", "object"]);

/** A labelled editor for one field. */
export function FieldEditor({ spec, value, onChange, id, errors }: Omit<FieldProps, "label"> & { errors?: string[] }) {
  const [placeholder, setPlaceholder] = usePlaceholderMode(value);
  const switchable = SWITCHABLE.has(spec.kind);
  const asText = switchable && (placeholder || (value !== undefined && typeof value === "string" && !hasPlaceholder(value) && spec.kind !== "enum"));
  const Editor = asText ? TextField : EDITORS[spec.kind];
  const editorSpec = asText ? { ...spec, kind: "string" as const } : spec;
  return (
    <div className={`field field-${spec.kind}${errors?.length ? " has-errors" : ""}`} data-field={spec.key}>
      <div className="field-label">
        <label htmlFor={id} title={spec.description}>
          {spec.label}
          {spec.required && <span className="required" aria-label="required"> *</span>}
        </label>
        {switchable && <PlaceholderSwitch on={!!asText} toggle={(on) => { setPlaceholder(on); if (!on && typeof value === "string") onChange(undefined); }} label={spec.label} />}
      </div>
      <Editor spec={editorSpec} value={value} onChange={onChange} id={id} />
      {spec.description && <div className="field-help">{spec.description}</div>}
      {errors?.map((message, i) => <div className="field-error" key={i} role="alert">{message}</div>)}
    </div>
  );
}
