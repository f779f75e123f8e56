/**
 * The one error type every layer throws for expected failures. `status` is the HTTP status the
 * API answers with (DECISIONS.md, "HTTP contract"); the code is the stable, machine-readable name.
 */
export class KilnError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number = 400,
    readonly details?: Record<string, unknown>,
    /** Response headers the answer must carry (e.g. `Retry-After` on 503 BUSY). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "KilnError";
  }
}

/** 404 for a named thing that does not exist. */
export const notFound = (code: string, message: string, details?: Record<string, unknown>) =>
  new KilnError(code, message, 404, details);

/** 409 for a request that conflicts with the current state. */
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new KilnError(code, message, 409, details);

/** 400 for input that is well-formed JSON but not acceptable. */
export const invalid = (code: string, message: string, details?: Record<string, unknown>) =>
  new KilnError(code, message, 400, details);

/** 503 for work refused because the service is at its limit of concurrent jobs; clients retry after `retryAfter` seconds. */
export const busy = (message: string, retryAfter: number, details?: Record<string, unknown>) =>
  new KilnError("BUSY", message, 503, { ...details, retry_after: retryAfter }, { "retry-after": String(retryAfter) });

/**
 * Type guard that survives bundling: Next.js may load this module once per route bundle, so
 * `instanceof` can see two different KilnError classes.
 */
export function isKilnError(e: unknown): e is KilnError {
  return e instanceof Error && e.name === "KilnError" && typeof (e as KilnError).code === "string" && typeof (e as KilnError).status === "number";
}
