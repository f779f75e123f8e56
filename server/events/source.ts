/**
 * Which surface a call came in through (HTTP, MCP, a recipe run, the CLI), carried with the call's
 * async context so the workspace can tag the operation it logs without every tool passing it on.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { EventSource } from "./types";

// On globalThis: Next.js may load this module once per route bundle, and the route that sets the
// source must share the store with the workspace that reads it.
const KEY = Symbol.for("kiln.event-source");
const current: AsyncLocalStorage<EventSource> = ((globalThis as { [KEY]?: AsyncLocalStorage<EventSource> })[KEY] ??= new AsyncLocalStorage());

/** Runs `fn` with `source` as the origin of the operations it causes. */
export function withSource<T>(source: EventSource, fn: () => T): T {
  return current.run(source, fn);
}

/** The source of the call being served; "internal" outside any surface (start-up, tests). */
export function currentSource(): EventSource {
  return current.getStore() ?? "internal";
}

/** The header Kiln's CLI sends so its calls are told apart from other HTTP clients. */
export const CLIENT_HEADER = "x-kiln-client";
