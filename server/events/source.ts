/**
 * Which surface a call came in through (HTTP, MCP, a recipe run, the CLI). It is part of the
 * caller (server/teams/actor.ts), carried with the call's async context so the workspace can tag
 * the operation it logs without every tool passing it on.
 */
import { currentCaller, personalActor, withCaller, type ClientKind } from "../teams/actor";
import type { EventSource } from "./types";

const CLIENT_OF_SOURCE: Record<EventSource, ClientKind> = { http: "http", mcp: "mcp", recipe: "recipe", live: "live", cli: "cli", internal: "internal" };

/**
 * Runs `fn` with `source` as the origin of the operations it causes. The person stays the current
 * caller's (a recipe's steps are its runner's); outside any caller, the personal-mode user.
 */
export function withSource<T>(source: EventSource, fn: () => T): T {
  const { actor } = currentCaller();
  const client = CLIENT_OF_SOURCE[source];
  return withCaller({ source, actor: actor.client === "internal" ? personalActor(client, source) : { ...actor, client: source === "recipe" ? "recipe" : actor.client } }, fn);
}

/** The source of the call being served; "internal" outside any surface (start-up, tests). */
export function currentSource(): EventSource {
  return currentCaller().source;
}

/** The header Kiln's CLI sends so its calls are told apart from other HTTP clients. */
export const CLIENT_HEADER = "x-kiln-client";
