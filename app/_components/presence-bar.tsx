"use client";
/** Who else is here (docs/teams.md, "Presence"): initials on the Studio's bar, with what each is doing on hover. */
import type { Person } from "../_lib/use-collab";

/** One person's initials, coloured from their name so the same person looks the same everywhere. */
export function Initials({ person }: { person: Person }) {
  let h = 0;
  for (const c of person.name) h = (h * 31 + c.charCodeAt(0)) % 360;
  const doing = person.studio ? ` (${[person.studio.page, person.studio.scene, person.studio.selected, person.studio.recipe].filter(Boolean).join(", ")})` : person.last_tool ? ` (last: ${person.last_tool})` : "";
  return (
    <span className="initials" style={{ background: `hsl(${h} 55% 42%)` }} title={`${person.label}${doing}`} aria-label={person.name}>
      {person.initials}
    </span>
  );
}

export function PresenceBar({ people }: { people: Person[] }) {
  if (people.length === 0) return null;
  // One badge per person and client kind: a person's two tabs are one face on the bar.
  const seen = new Set<string>();
  const shown = people.filter((p) => {
    const k = `${p.user_id ?? p.name}|${p.client}|${p.client_name ?? ""}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return (
    <span className="presence-bar" aria-label="Here now">
      {shown.slice(0, 12).map((p) => <Initials key={p.session} person={p} />)}
      {shown.length > 12 && <span className="muted">+{shown.length - 12}</span>}
    </span>
  );
}
