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

/** Where the open recipe lives on disk, as last read or written. */
export interface RecipeOrigin {
  name: string;
  source: "project" | "user";
  text: string;
}

/** A question to ask before saving. */
export interface SaveQuestion {
  reasons: ReactNode[];
  proceed(): void;
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
    async (draft: RecipeDraft, text: string, overwrite: boolean) => {
      const name = recipeName(draft);
      setSaving(true);
      try {
        const result = await recipeApi(client).save(name, text, overwrite);
        onSaved(result, draft, text);
        void queryClient.invalidateQueries({ queryKey: trpc.tools.pathKey() });
        return true;
      } catch (e) {
        onProblem(readableError(e).message);
        return false;
      } finally {
        setSaving(false);
      }
    },
    [client, onSaved, onProblem, queryClient, trpc],
  );

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
