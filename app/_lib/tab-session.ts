/**
 * This browser tab's client session (docs/teams.md, "Presence"): sent as `X-Kiln-Session` with
 * every tRPC call and as `?session=` on the tab's event stream, so Kiln knows the tab's calls,
 * presence and locks belong together, and that they end when the tab's stream goes.
 * Kept in sessionStorage: a reload is the same tab; a new tab gets its own.
 */
const KEY = "kiln-tab-session";

export function tabSession(): string | null {
  if (typeof window === "undefined") return null;
  let id = window.sessionStorage.getItem(KEY);
  if (!id) {
    id = `tab-${crypto.randomUUID()}`;
    window.sessionStorage.setItem(KEY, id);
  }
  return id;
}
