/**
 * Where a call came from, recorded with each operation (`Operation.source`) and sent with /events:
 * http (the /tools routes and the web pages' tRPC), mcp, recipe (a step of a recipe run), live (a
 * live application's hand edits and connection notes), cli (the `kiln` command, over HTTP with the
 * `x-kiln-client: cli` header). Carried in async context so no tool signature has to change.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export const CALL_SOURCES = ["http", "mcp", "recipe", "live", "cli"] as const;
export type CallSource = (typeof CALL_SOURCES)[number];

const store = new AsyncLocalStorage<CallSource>();

/** Runs `fn` with its operations attributed to `source`. */
export function withSource<T>(source: CallSource, fn: () => T): T {
  return store.run(source, fn);
}

/** The source of the call being handled; null outside any surface (start-up tasks). */
export function currentSource(): CallSource | null {
  return store.getStore() ?? null;
}
