/**
 * Recipe revisions (docs/teams.md, "Saving a recipe someone else saved"): a recipe's revision is
 * a hash of its text; `get_recipe_info` gives it with who saved it last, and `save_recipe` with
 * the revision the builder loaded refuses, 409 RECIPE_CHANGED, when the file changed since,
 * naming who saved in between and handing back their text (to take, merge or overwrite).
 * Who saved last is kept per recipe in the Setting table ("recipe_saved/<name>").
 */
import { createHash } from "node:crypto";
import type { Kiln } from "../runtime";
import { describeActor, type Actor } from "../teams/actor";
import { conflict } from "../errors";

export interface SavedBy { name: string; user_id: string | null; label: string; at: string; revision: string }

/** A text's revision: the first 16 hex digits of its SHA-256. */
export const revisionOf = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

const key = (name: string) => `recipe_saved/${name}`;

/** Who saved `name` last through Kiln, if that save is the file's current text (`revision`). */
export async function savedBy(kiln: Kiln, name: string, revision: string): Promise<SavedBy | null> {
  const row = await kiln.db.setting.findUnique({ where: { key: key(name) } });
  if (!row) return null;
  try {
    const s = JSON.parse(row.value) as SavedBy;
    return s.revision === revision ? s : null;
  } catch {
    return null;
  }
}

export async function recordSave(kiln: Kiln, name: string, revision: string, actor: Actor): Promise<void> {
  const value = JSON.stringify({ name: actor.name, user_id: actor.userId, label: describeActor(actor), at: new Date().toISOString(), revision } satisfies SavedBy);
  await kiln.db.setting.upsert({ where: { key: key(name) }, create: { key: key(name), value }, update: { value } });
}

/** 409 RECIPE_CHANGED: the file is not the revision the saver loaded. */
export async function changedSince(kiln: Kiln, name: string, current: { text: string } | null): Promise<Error> {
  if (!current) return conflict("RECIPE_CHANGED", `The recipe "${name}" was deleted since you loaded it; nothing was saved. Save without a revision to create it again.`, { their_yaml: null, their_revision: null, saved_by: null });
  const revision = revisionOf(current.text);
  const by = await savedBy(kiln, name, revision);
  const who = by ? `saved by ${by.label} at ${by.at.slice(11, 19)} UTC` : "changed on disk";
  return conflict(
    "RECIPE_CHANGED",
    `The recipe "${name}" was ${who} since you loaded it; nothing was saved. Take their version, merge (details.their_yaml), or save with revision "${revision}" to overwrite it.`,
    { their_yaml: current.text, their_revision: revision, saved_by: by },
  );
}
