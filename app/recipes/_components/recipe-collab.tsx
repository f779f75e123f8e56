"use client";
/**
 * Presence and locks in the builder (docs/teams.md): who else has this recipe open (their
 * initials), and a lock held while this person edits it (unsaved changes), released once saved or
 * left. Someone else's lock is shown: Kiln refuses saving over it (423).
 */
import { useMemo } from "react";
import { useCollab, useEditLock } from "../../_lib/use-collab";
import { useCanEdit } from "../../_lib/viewer";
import { Initials } from "../../_components/presence-bar";

export function RecipeCollab({ name, editing }: { name: string | undefined; editing: boolean }) {
  const place = useMemo(() => ({ page: "recipes", recipe: name ?? null }), [name]);
  const { others, locks, session } = useCollab(place);
  const canEdit = useCanEdit();
  const target = useMemo(() => (name && editing ? { kind: "recipe" as const, name } : null), [name, editing]);
  const other = useEditLock(target, canEdit, locks, session)
    ?? (name ? locks.find((l) => l.key === `recipe/${name}` && l.holder.session !== session) ?? null : null);
  const here = others.filter((p) => name && p.studio?.recipe === name);
  if (here.length === 0 && !other) return null;
  return (
    <div className="recipe-collab" data-testid="recipe-collab">
      {here.map((p) => <Initials key={p.session} person={p} />)}
      {other && <span className="lock-notice" role="status">Locked by {other.holder.label} since {other.since.slice(11, 16)} UTC: saving is refused until they are done.</span>}
    </div>
  );
}
