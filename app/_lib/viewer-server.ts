/**
 * The Studio's viewer for the page being rendered: in team mode, the person of the request's
 * session cookie (or token), through the same credential cache as the API (server/teams).
 */
import { headers } from "next/headers";
import { getKiln } from "@/server/runtime";
import { PERMISSIONS, ROLES, type Role } from "@/server/teams/actor";
import type { Viewer } from "./viewer";

export async function currentViewer(): Promise<Viewer> {
  let kiln;
  try {
    kiln = await getKiln();
  } catch {
    return { mode: "personal", name: null, email: null, role: "owner", signedIn: false };
  }
  if (!kiln.teams.enabled) return { mode: "personal", name: null, email: null, role: "owner", signedIn: false };
  const h = await headers();
  const resolved = await kiln.teams.credentials.resolve(new Headers(h), "browser");
  if (!("caller" in resolved)) return { mode: "team", name: null, email: null, role: "viewer", signedIn: false };
  const { actor } = resolved.caller;
  const email = actor.userId ? (await kiln.db.user.findUnique({ where: { id: actor.userId }, select: { email: true } }))?.email ?? null : null;
  // A token's scope caps the role, as it does for every call.
  const role: Role = actor.token ? ROLES[Math.min(ROLES.indexOf(actor.role), PERMISSIONS.indexOf(actor.token.scope))] : actor.role;
  return { mode: "team", name: actor.name, email, role, signedIn: !!resolved.sessionId };
}
