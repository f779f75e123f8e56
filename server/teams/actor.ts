/**
 * Who is calling: the person (in personal mode, the operating-system user), through which client,
 * with which token, in which session. Each surface (HTTP, tRPC, MCP, /events, /bridge, the CLI)
 * resolves the caller once at its edge and runs the call inside `withCaller`; everything below
 * (permission checks, the operation log's attribution, per-person undo, locks, presence) reads it
 * from here instead of having it passed through every tool.
 *
 * The scene core never sees an actor: attribution is persistence's business (server/workspace).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { userInfo } from "node:os";
import type { EventSource } from "../events/types";

/** What a person may do in a project, weakest first (docs/teams.md). */
export const ROLES = ["viewer", "editor", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** What a tool needs (declared per tool in the registry), weakest first; token scopes use the same words. */
export const PERMISSIONS = ["read", "write", "admin"] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The kind of program a call came from. `browser` is the Studio; `live` a connected application. */
export const CLIENT_KINDS = ["browser", "http", "cli", "recipe", "mcp", "live", "internal"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export interface Actor {
  /** The account's id in team mode; null in personal mode (nobody signs in). */
  userId: string | null;
  /** Display name: the account's name, or the operating-system user in personal mode. */
  name: string;
  /** The person's role. Personal mode: owner (whoever runs Kiln on their machine owns it). */
  role: Role;
  client: ClientKind;
  /** The client's own name and version where it gives one ("Claude Desktop 0.9.2", "blender 3.4.1"). */
  clientName?: string;
  /** The personal access token the call used; its scope caps the role. */
  token?: { id: string; name: string; scope: Permission };
  /**
   * The client session: a Studio tab, an MCP session, a CLI run, a live app's connection. Undo
   * acts on this session's steps in personal mode; presence and locks end with it.
   */
  session: string;
}

export interface Caller {
  /** The surface, as the operation log has always recorded it (server/events/types.ts). */
  source: EventSource;
  actor: Actor;
}

/** The operating-system user running Kiln: the person of personal mode. */
export const systemUser = (() => {
  let name: string | undefined;
  return () => (name ??= safeUserName());
})();

function safeUserName(): string {
  try {
    return userInfo().username || "unknown";
  } catch {
    return process.env.USER || "unknown";
  }
}

/** The caller in personal mode: the machine's user, through `client`, in `session`. */
export function personalActor(client: ClientKind, session: string, clientName?: string): Actor {
  return { userId: null, name: systemUser(), role: "owner", client, session, ...(clientName ? { clientName } : {}) };
}

/** Kiln's own work (start-up, reconciliation, tests calling in-process). */
export const INTERNAL_CALLER: Caller = { source: "internal", actor: personalActor("internal", "internal") };

// On globalThis: Next.js may load this module once per route bundle, and the route that sets the
// caller must share the store with the workspace that reads it.
const KEY = Symbol.for("kiln.caller");
const store: AsyncLocalStorage<Caller> = ((globalThis as { [KEY]?: AsyncLocalStorage<Caller> })[KEY] ??= new AsyncLocalStorage());

/** Runs `fn` as `caller`: every operation it causes is attributed to it and checked against its rights. */
export function withCaller<T>(caller: Caller, fn: () => T): T {
  return store.run(caller, fn);
}

/** The caller of the call being served; Kiln itself outside any surface. */
export function currentCaller(): Caller {
  return store.getStore() ?? INTERNAL_CALLER;
}

/** True when `role` grants `permission`: viewers read, editors also write, owners also administer. */
export function roleAllows(role: Role, permission: Permission): boolean {
  return ROLES.indexOf(role) >= PERMISSIONS.indexOf(permission);
}

/** What the actor may do: the role, capped by the token's scope when the call used a token. */
export function actorAllows(actor: Actor, permission: Permission): boolean {
  if (!roleAllows(actor.role, permission)) return false;
  return !actor.token || PERMISSIONS.indexOf(actor.token.scope) >= PERMISSIONS.indexOf(permission);
}

/** The role a permission needs, for refusals ("needs the editor role"). */
export function roleFor(permission: Permission): Role {
  return ROLES[PERMISSIONS.indexOf(permission)];
}

const APP_TITLES: Record<string, string> = { blender: "Blender", godot: "Godot", unity: "Unity" };

/**
 * How history shows an actor: "Ada via Claude Desktop", "Ben in Blender", "Ada (browser)".
 * Live apps read "in", programs "via"; a token's name is added when the client has no name.
 */
export function describeActor(a: Pick<Actor, "name" | "client" | "clientName" | "token">): string {
  if (a.client === "live") return `${a.name} in ${APP_TITLES[a.clientName?.split(" ")[0] ?? ""] ?? a.clientName ?? "a live app"}`;
  if (a.clientName) return `${a.name} via ${a.clientName}`;
  if (a.token) return `${a.name} via ${a.client} (token "${a.token.name}")`;
  return `${a.name} (${a.client})`;
}
