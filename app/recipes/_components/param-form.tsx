"use client";
/**
 * The params of a step as a form generated from the tool's JSON Schema (the catalogue's, i.e.
 * the tool's own zod input). Params the schema does not know (a typo, a tool changed since) are
 * listed below it as YAML, so nothing in the recipe is hidden or silently dropped.
 */
import { useMemo } from "react";
import { isRecord, type RecipeDraft } from "../_lib/draft";
import { setParam } from "../_lib/edits";
import { fieldIssues, type Issue } from "../_lib/issues";
import { fieldsOf, keyOrder, propertySchema, type FieldSpec } from "../_lib/schema-form";
import type { ToolInfo } from "../_lib/tools";
import { FieldEditor } from "./field-editor";

/** Props of the param form. */
export interface ParamFormProps {
  uid: string;
  tool?: ToolInfo;
  params: unknown;
  issues?: Issue[];
  edit(change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string): void;
}

const yamlSpec = (key: string): FieldSpec => ({ key, label: key, kind: "yaml", required: false });

/** The form of a step's params. */
export function ParamForm({ uid, tool, params, issues, edit }: ParamFormProps) {
  const fields = useMemo(() => fieldsOf(tool?.input), [tool]);
  const values = isRecord(params) ? params : {};
  const known = new Set(fields.map((f) => f.key));
  const unknown = Object.keys(values).filter((k) => !known.has(k));
  const change = (key: string) => (value: unknown) => {
    const schema = tool?.input;
    const orders = [keyOrder(schema), keyOrder(propertySchema(schema, key))];
    edit((d) => setParam(d, uid, [key], value, orders), `param:${uid}:${key}`);
  };
  const messages = (key: string) => fieldIssues(issues, `params.${key}`).map((i) => i.message);
  if (!tool) return <p className="muted">Choose a tool to see its parameters.</p>;
  return (
    <div className="param-form">
      {fields.length === 0 && <p className="muted">{tool.name} takes no parameters.</p>}
      {fields.map((spec) => (
        <FieldEditor key={spec.key} spec={spec} id={`p-${uid}-${spec.key}`} value={values[spec.key]} onChange={change(spec.key)} errors={messages(spec.key)} />
      ))}
      {unknown.length > 0 && (
        <div className="unknown-params">
          <h4>Not parameters of {tool.name}</h4>
          {unknown.map((key) => (
            <div key={key} className="unknown-param">
              <FieldEditor spec={yamlSpec(key)} id={`p-${uid}-${key}`} value={values[key]} onChange={change(key)} errors={messages(key)} />
              <button type="button" className="link-button" onClick={() => change(key)(undefined)}>Remove {key}</button>
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
