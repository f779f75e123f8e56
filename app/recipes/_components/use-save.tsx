"use client";
/**
 * Saving to ./recipes/<name>.yaml with save_recipe. Before writing, it asks when that would
 * replace a file: another project recipe of that name, or this recipe's file changed on disk
 * since it was opened; and it warns when a user-wide recipe of that name exists (the project one
 * will hide it). Saving under a new name leaves the old file alone (it is "save as").
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState, type ReactNode } from "react";
import { RECIPE_NAME_PATTERN } from "@/server/recipes/schema";
import { recipeName, type RecipeDraft } from "../_lib/draft";
import { readableError } from "../_lib/errors";
import { recipeApi } from "../_lib/kiln-api";
import type { RecipeList, SaveResult } from "../_lib/kiln-types";
import { useTRPC, useTRPCClient } from "../_lib/trpc";
import { snapshotOf } from "./use-draft-snapshot";
import { mergeRecipeYaml } from "@/server/recipes/merge";

/** Where the open recipe lives on disk, as last read or written. */
export interface RecipeOrigin {
  name: string;
  source: "project" | "user";
  text: string;
  /** The revision loaded (get_recipe_info) or last saved: save_recipe refuses when the file moved on (409 RECIPE_CHANGED). */
  revision?: string;
}

/** A question to ask before saving. */
export interface SaveQuestion {
  reasons: ReactNode[];
  proceed(): void;
  /** Other answers than "Save" (someone saved in between: take theirs, merge). */
  choices?: { label: string; run(): void }[];
  /** The label of `proceed`. */
  confirm?: string;
  title?: string;
}

/** What 409 RECIPE_CHANGED carries (server/tools/recipe-revisions.ts). */
interface Changed { their_yaml: string | null; their_revision: string | null; saved_by: { label: string; at: string } | null }

function changedDetails(e: unknown): Changed | undefined {
  const kiln = (e as { data?: { kiln?: { code?: string; details?: Changed } } })?.data?.kiln;
  return kiln?.code === "RECIPE_CHANGED" ? kiln.details : undefined;
}

/** Options of useSave. */
export interface SaveOptions {
  origin?: RecipeOrigin;
  current(): RecipeDraft;
  onSaved(result: SaveResult, draft: RecipeDraft, text: string): void;
  onProblem(message: string): void;
}

/** `save()` resolves true once saved (false when refused, failed or cancelled). */
export function useSave({ origin, current, onSaved, onProblem }: SaveOptions) {
  const client = useTRPCClient();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [question, setQuestion] = useState<SaveQuestion | undefined>();
  const [saving, setSaving] = useState(false);
  const answerNo = useRef<() => void>(undefined);

  const write = useCallback(
    async (draft: RecipeDraft, text: string, overwrite: boolean, revision?: string): Promise<boolean> => {
      const name = recipeName(draft);
      setSaving(true);
      try {
        const result = await recipeApi(client).save(name, text, overwrite, revision);
        onSaved(result, draft, text);
        void queryClient.invalidateQueries({ queryKey: trpc.tools.pathKey() });
        return true;
      } catch (e) {
        const changed = changedDetails(e);
        if (changed && revision) return askAboutTheirs(draft, text, changed);
        onProblem(readableError(e).message);
        return false;
      } finally {
        setSaving(false);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [client, onSaved, onProblem, queryClient, trpc, origin],
  );

  /** Someone saved in between: their version, a merge of both, or overwrite theirs. */
  const askAboutTheirs = (draft: RecipeDraft, text: string, changed: Changed): Promise<boolean> => {
    const who = changed.saved_by ? <>{changed.saved_by.label} saved it at {changed.saved_by.at.slice(11, 19)} UTC</> : <>It changed on disk</>;
    const theirs = changed.their_yaml;
    const reasons: ReactNode[] = [<>{who} since you opened it; nothing was saved.</>];
    let merged: { yaml: string; conflicts: { message: string }[] } | undefined;
    if (theirs !== null && origin) {
      try {
        merged = mergeRecipeYaml(origin.text, text, theirs);
        reasons.push(merged.conflicts.length
          ? <>A merge keeps both sides' changes; where both changed the same thing, yours is kept: {merged.conflicts.map((c) => c.message).join("; ")}.</>
          : <>A merge keeps both sides' changes without a clash.</>);
      } catch {
        merged = undefined;
      }
    }
    return new Promise<boolean>((resolve) => {
      const done = (p: Promise<boolean>) => { setQuestion(undefined); void p.then(resolve); };
      const revision = changed.their_revision ?? undefined;
      const choices: SaveQuestion["choices"] = [];
      if (theirs !== null) choices.push({ label: "Take theirs", run: () => done(Promise.resolve(window.location.reload()).then(() => false)) });
      if (merged && revision) {
        const m = merged.yaml;
        choices.push({ label: "Save the merge", run: () => done(write(draft, m, true, revision).then((ok) => { if (ok) window.location.reload(); return ok; })) });
      }
      setQuestion({
        title: "Someone saved this recipe", confirm: "Overwrite theirs", reasons, choices,
        proceed: () => done(write(draft, text, true, revision)),
      });
      answerNo.current = () => resolve(false);
    });
  };

  const save = useCallback(async (): Promise<boolean> => {
    const draft = current();
    const name = recipeName(draft);
    if (!RECIPE_NAME_PATTERN.test(name)) {
      onProblem("Give the recipe a name of letters, digits and hyphens first: it is also the file name.");
      return false;
    }
    const { text } = snapshotOf(draft);
    let list: RecipeList;
    try {
      list = await recipeApi(client).listRecipes();
    } catch (e) {
      onProblem(readableError(e).message);
      return false;
    }
    const project = list.recipes.find((e) => e.name === name && e.source === "project");
    const user = list.recipes.find((e) => e.name === name && e.source === "user");
    const reasons: ReactNode[] = [];
    // The file this builder opened (or last saved), at a known revision: Kiln says if it moved on.
    if (project && origin?.name === name && origin.source === "project" && origin.revision) return write(draft, text, true, origin.revision);
    if (project && (origin?.name !== name || origin.source !== "project")) {
      reasons.push(<>A project recipe named <b>{name}</b> exists ({project.path}). Saving replaces it.</>);
    } else if (project) {
      const info = await recipeApi(client).recipeInfo(name).catch(() => undefined);
      if (info && info.yaml !== origin?.text) reasons.push(<>{project.path} changed on disk since you opened it. Saving replaces those changes.</>);
    }
    if (user && !project) reasons.push(<>A user-wide recipe named <b>{name}</b> exists ({user.path}). The project recipe will be used instead of it.</>);
    if (reasons.length === 0) return write(draft, text, !!project);
    return new Promise<boolean>((resolve) => {
      setQuestion({
        reasons,
        proceed: () => {
          setQuestion(undefined);
          void write(draft, text, !!project).then(resolve);
        },
      });
      answerNo.current = () => resolve(false);
    });
  }, [client, current, origin, onProblem, write]);

  const cancel = useCallback(() => {
    setQuestion(undefined);
    answerNo.current?.();
  }, []);

  return { save, saving, question, cancel };
}
