"use client";
/**
 * /recipes: every recipe of ./recipes/ and ~/.kiln/recipes/ with its description, source,
 * validity, step count and last run; open, duplicate, delete (project recipes only, after a
 * confirmation), or start a new one.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import { RECIPE_NAME_PATTERN } from "@/server/recipes/schema";
import { setField } from "../_lib/edits";
import { draftFromYaml } from "../_lib/draft";
import { readableError } from "../_lib/errors";
import type { RecipeEntry, RecipeList as RecipeListResult, RunList } from "../_lib/kiln-types";
import { draftToYaml } from "../_lib/serialize";
import { readTool, recipeApi, writeTool } from "../_lib/kiln-api";
import { useTRPC, useTRPCClient } from "../_lib/trpc";
import { ConfirmDialog, Dialog } from "./dialog";
import { TokenPrompt } from "./token-prompt";
import { Toasts, useToasts } from "./toasts";
import { useCanEdit } from "../../_lib/viewer";

/** A recipe's page: /recipes/<name>, except "new", which is the blank builder's address. */
export function recipeHref(name: string): string {
  return name === "new" ? "/recipes/new?recipe=new" : `/recipes/${name}`;
}

function ago(iso: string): string {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

function LastRun({ name }: { name: string }) {
  const trpc = useTRPC();
  const { data } = useQuery(readTool(trpc, "list_recipe_runs").queryOptions({ recipe: name, limit: 1 }));
  const run = (data as RunList | undefined)?.runs[0];
  if (!run) return <span className="muted">never</span>;
  return <span className={`run-pill run-${run.status}`} title={run.started_at}>{run.status} · {ago(run.started_at)}</span>;
}

function DuplicateDialog({ entry, taken, onClose, onDone }: { entry: RecipeEntry; taken: Set<string>; onClose(): void; onDone(name: string): void }) {
  const client = useTRPCClient();
  const [name, setName] = useState(`${entry.name}-copy`);
  const [problem, setProblem] = useState<string>();
  const invalid = !RECIPE_NAME_PATTERN.test(name) ? "letters, digits and hyphens only" : taken.has(name) ? "a recipe of this name exists" : undefined;
  const submit = async () => {
    try {
      const api = recipeApi(client);
      const info = await api.recipeInfo(entry.name);
      const parsed = draftFromYaml(info.yaml);
      if (!parsed.draft) throw new Error(`${entry.path} does not parse as YAML: ${parsed.problem?.message}`);
      // Only the name changes; comments and layout of the file are kept.
      await api.save(name, draftToYaml(setField(parsed.draft, "name", name)), false);
      onDone(name);
    } catch (e) {
      setProblem(readableError(e).message);
    }
  };
  return (
    <Dialog title={`Duplicate ${entry.name}`} onClose={onClose}>
      <form onSubmit={(e) => { e.preventDefault(); if (!invalid) void submit(); }}>
        <div className="field">
          <label htmlFor="duplicate-name">Name of the copy</label>
          <input id="duplicate-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus aria-invalid={invalid ? true : undefined} />
          {(invalid || problem) && <div className="field-error" role="alert">{invalid ?? problem}</div>}
        </div>
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" className="primary" disabled={!!invalid}>Duplicate</button>
        </div>
      </form>
    </Dialog>
  );
}

/** The recipe list page. */
export function RecipeList() {
  const canEdit = useCanEdit();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toasts, notify, dismiss } = useToasts();
  const list = useQuery(readTool(trpc, "list_recipes").queryOptions({}));
  const [duplicating, setDuplicating] = useState<RecipeEntry>();
  const [deleting, setDeleting] = useState<RecipeEntry>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tools.pathKey() });
  // Runs started anywhere (HTTP, the CLI, another tab) update "Last run".
  useStudioEvents(() => void refresh(), ["run"]);
  const remove = useMutation(writeTool(trpc, "delete_recipe").mutationOptions({
    onSuccess: (_r, input) => { notify("ok", `Deleted ${(input as { name: string }).name}`); void refresh(); },
    onError: (e) => notify("error", readableError(e).message),
  }));
  const data = list.data as RecipeListResult | undefined;
  const problem = list.error ? readableError(list.error) : undefined;
  return (
    <main className="page recipes-page">
      <div className="brand"><h1><Link href="/" className="home-link">Kiln</Link> · Recipes</h1><span className="tag">named sequences of tool calls, run with variables</span></div>
      <div className="list-actions">
        <Link className="button-like primary" href="/recipes/new">+ New recipe</Link>
        {data && <span className="muted">Project: <code>{data.directories.project}</code> · user-wide: <code>{data.directories.user}</code></span>}
      </div>
      {problem?.status === 401 && <TokenPrompt onSet={() => void list.refetch()} />}
      {problem && problem.status !== 401 && <p className="field-error">{problem.message}</p>}
      {list.isPending && <p className="muted">Loading…</p>}
      {data && data.recipes.length === 0 && <p className="muted">No recipes yet. Create one, or put YAML files in <code>{data.directories.project}</code>.</p>}
      {data && data.recipes.length > 0 && (
        <div className="table-scroll">
        <table className="recipe-table">
          <thead>
            <tr><th>Recipe</th><th>Source</th><th>Valid</th><th>Steps</th><th>Last run</th><th><span className="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {data.recipes.map((entry) => (
              <tr key={entry.path} className={entry.shadowed ? "is-shadowed" : undefined} data-testid="recipe-row" data-recipe={entry.name}>
                <td>
                  {entry.shadowed ? <span className="recipe-name">{entry.name}</span> : <Link className="recipe-name" href={recipeHref(entry.name)}>{entry.name}</Link>}
                  <div className="muted recipe-description">{entry.description ?? ""}</div>
                  {entry.shadowed && <div className="muted">hidden by {entry.shadowed_by ?? "another recipe of this name"}</div>}
                </td>
                <td><span className={`source source-${entry.source}`} title={entry.path}>{entry.source}</span></td>
                <td>{entry.valid ? <span className="ok-mark">✓ valid</span> : <span className="field-error" title={entry.errors.map((e) => `${e.line}:${e.column} ${e.message}`).join("\n")}>{entry.errors.length} problem{entry.errors.length === 1 ? "" : "s"}</span>}</td>
                <td>{entry.steps}</td>
                <td>{entry.shadowed ? <span className="muted">—</span> : <LastRun name={entry.name} />}</td>
                <td className="row-actions">
                  {!entry.shadowed && <Link className="button-like" href={recipeHref(entry.name)} aria-label={`Open ${entry.name}`}>Open</Link>}
                  {!entry.shadowed && <button type="button" onClick={() => setDuplicating(entry)} aria-label={`Duplicate ${entry.name}`}>Duplicate</button>}
                  <button type="button" className="danger" disabled={entry.source !== "project" || !canEdit} title={entry.source === "project" ? undefined : "Kiln never deletes user-wide recipes"} onClick={() => setDeleting(entry)} aria-label={`Delete ${entry.name}`}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
      {duplicating && data && (
        <DuplicateDialog entry={duplicating} taken={new Set(data.recipes.map((r) => r.name))} onClose={() => setDuplicating(undefined)} onDone={(name) => { setDuplicating(undefined); notify("ok", `Created ${name}`); void refresh(); }} />
      )}
      {deleting && (
        <ConfirmDialog title={`Delete ${deleting.name}?`} confirm="Delete" danger onClose={() => setDeleting(undefined)} onConfirm={() => { remove.mutate({ name: deleting.name }); setDeleting(undefined); }}>
          <p>This removes <code>{deleting.path}</code>. Its run history stays.</p>
        </ConfirmDialog>
      )}
      <Toasts toasts={toasts} dismiss={dismiss} />
    </main>
  );
}
