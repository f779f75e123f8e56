"use client";
/**
 * /recipes/new and /recipes/<name>: loads the recipe (get_recipe_info, through tRPC) and opens
 * the builder on it. A file whose YAML does not parse opens with an empty canvas and the YAML
 * panel showing the text and where it is broken, so it can be fixed here.
 */
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo } from "react";
import { draftFromYaml, emptyDraft } from "../_lib/draft";
import { readableError } from "../_lib/errors";
import type { RecipeInfo } from "../_lib/kiln-types";
import type { ToolInfo } from "../_lib/tools";
import { readTool } from "../_lib/kiln-api";
import { useTRPC } from "../_lib/trpc";
import { BuilderEditor } from "./builder-editor";
import { TokenPrompt } from "./token-prompt";

/** The builder page's client part. */
export function Builder({ tools, name }: { tools: ToolInfo[]; name?: string }) {
  if (!name) return <BuilderEditor tools={tools} initial={emptyDraft()} />;
  return <RecipeLoader key={name} tools={tools} name={name} />;
}

function RecipeLoader({ tools, name }: { tools: ToolInfo[]; name: string }) {
  const trpc = useTRPC();
  const query = useQuery({ ...readTool(trpc, "get_recipe_info").queryOptions({ recipe: name }), staleTime: Infinity });
  const info = query.data as RecipeInfo | undefined;
  const parsed = useMemo(() => (info ? draftFromYaml(info.yaml) : undefined), [info]);
  if (query.isPending) return <main className="page loading" aria-busy="true">Opening {name}…</main>;
  if (query.error) {
    const problem = readableError(query.error);
    if (problem.status === 401) return <main className="page"><TokenPrompt onSet={() => void query.refetch()} /></main>;
    return (
      <main className="page">
        <h1>Cannot open {name}</h1>
        <p>{problem.message}</p>
        <p><Link href="/recipes">All recipes</Link> · <Link href="/recipes/new">New recipe</Link></p>
      </main>
    );
  }
  const origin = { name: info!.name, source: info!.source, text: info!.yaml, revision: info!.revision };
  return <BuilderEditor tools={tools} initial={parsed?.draft ?? emptyDraft()} origin={origin} brokenText={parsed?.draft ? undefined : info!.yaml} validation={parsed?.draft ? info!.validation : undefined} />;
}
