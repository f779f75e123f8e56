"use client";
/**
 * The side panel for the recipe itself (the start node): name, description, version, author,
 * transaction and variables, plus the recipe's own problems and any top-level keys the format
 * does not have (kept, shown, removable).
 */
import { RECIPE_FIELDS, RECIPE_NAME_PATTERN } from "@/server/recipes/schema";
import type { RecipeDraft } from "../_lib/draft";
import { setField } from "../_lib/edits";
import type { Issue } from "../_lib/issues";
import { FieldEditor } from "./field-editor";
import { TextField } from "./scalar-fields";
import { VariablesEditor } from "./variables-editor";

/** Props of RecipeInspector. */
export interface RecipeInspectorProps {
  fields: Record<string, unknown>;
  variables: [string, unknown][];
  issues: Issue[];
  edit(change: (draft: RecipeDraft) => RecipeDraft, coalesce?: string): void;
}

const asText = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

/** The inspector of the recipe (start node). */
export function RecipeInspector({ fields, variables, issues, edit }: RecipeInspectorProps) {
  const set = (key: string) => (v: unknown) => edit((d) => setField(d, key, v), `field:${key}`);
  const messages = (field: string) => issues.filter((i) => i.path === field || i.path.startsWith(`${field}.`) || i.path.startsWith(`${field}[`)).map((i) => i.message);
  const name = asText(fields.name);
  const nameProblem = name !== "" && !RECIPE_NAME_PATTERN.test(name) ? "letters, digits and hyphens only (it is the file name too)" : undefined;
  const extra = Object.keys(fields).filter((k) => !RECIPE_FIELDS.includes(k));
  const other = issues.filter((i) => !["name", "description", "version", "author", "transaction", "variables", ...extra].some((f) => i.path === f || i.path.startsWith(`${f}.`)));
  const text = (key: string, required = false) => ({ key, label: key, kind: "string" as const, required });
  const row = (key: string, label: string, required: boolean, hint?: string, problem?: string) => (
    <div className="field" key={key}>
      <div className="field-label"><label htmlFor={`r-${key}`}>{label}{required && <span className="required"> *</span>}</label></div>
      <TextField spec={text(key, required)} id={`r-${key}`} value={fields[key]} onChange={set(key)} />
      {hint && <div className="field-help">{hint}</div>}
      {[...(problem ? [problem] : []), ...messages(key)].map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
    </div>
  );
  return (
    <section className="inspector-section" aria-label="Recipe">
      <header className="inspector-head"><h2>Recipe</h2></header>
      {row("name", "Name", true, "Saved as recipes/<name>.yaml.", nameProblem)}
      <div className="field">
        <div className="field-label"><label htmlFor="r-description">Description <span className="required"> *</span></label></div>
        <textarea id="r-description" rows={2} value={asText(fields.description)} onChange={(e) => set("description")(e.target.value)} />
        {messages("description").map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
      </div>
      <div className="field-pair">
        {row("version", "Version", false)}
        {row("author", "Author", false)}
      </div>
      <label className="checkbox-field">
        <input type="checkbox" checked={fields.transaction === true} onChange={(e) => edit((d) => setField(d, "transaction", e.target.checked ? true : undefined))} />
        Run in a transaction (rolled back if a step fails)
      </label>
      <h3 className="inspector-subhead">Variables</h3>
      <VariablesEditor entries={variables} edit={edit} />
      {messages("variables").map((m, i) => <div className="field-error" key={i} role="alert">{m}</div>)}
      {extra.map((key) => (
        <div key={key} className="unknown-param">
          <FieldEditor spec={{ key, label: `${key} (not a recipe field)`, kind: "yaml", required: false }} id={`r-x-${key}`} value={fields[key]} onChange={set(key)} errors={messages(key)} />
          <button type="button" className="link-button" onClick={() => edit((d) => setField(d, key, undefined))}>Remove {key}</button>
        </div>
      ))}
      {other.length > 0 && (
        <ul className="issue-list">
          {other.map((issue, i) => <li key={i} className="field-error">{issue.path ? <code>{issue.path}</code> : null} {issue.message}</li>)}
        </ul>
      )}
    </section>
  );
}
