/**
 * The HTTP envelope of DECISIONS.md: `{ok: true, result}` or `{ok: false, error: {code, message,
 * details?}}`, and the mapping from anything thrown to a status and error code.
 */
import { z } from "zod";
import { storageError } from "../db/storage-errors";
import { isKilnError } from "../errors";

export interface ErrorBody { code: string; message: string; details?: Record<string, unknown> }

/** A JSON response with the security headers every answer carries. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers },
  });
}

export const ok = (result: unknown) => json(200, { ok: true, result });

export const fail = (status: number, error: ErrorBody, headers?: Record<string, string>) =>
  json(status, { ok: false, error }, headers);

/** Field paths and messages of a zod error, for `details.fields`. */
export function zodFields(error: z.ZodError) {
  return error.issues.flatMap((i) => {
    if (i.code === "unrecognized_keys")
      return i.keys.map((k) => ({ path: [...i.path, k].join("."), message: `Unknown parameter "${k}".` }));
    return [{ path: i.path.join("."), message: i.message }];
  });
}

// Structural checks rather than instanceof: bundles may hold separate copies of the classes.
function isZodError(e: unknown): e is z.ZodError {
  return e instanceof Error && Array.isArray((e as z.ZodError).issues) && e.name === "ZodError";
}

/**
 * tRPC's own refusals (no tool error behind them): the status each answers with, and Kiln's code
 * for it, the same code /tools uses for that situation where there is one.
 */
const TRPC_CLIENT_ERRORS: Record<string, { status: number; code: string }> = {
  PARSE_ERROR: { status: 400, code: "INVALID_JSON" },
  BAD_REQUEST: { status: 400, code: "BAD_REQUEST" },
  UNAUTHORIZED: { status: 401, code: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, code: "FORBIDDEN" },
  NOT_FOUND: { status: 404, code: "UNKNOWN_PROCEDURE" },
  METHOD_NOT_SUPPORTED: { status: 405, code: "METHOD_NOT_ALLOWED" },
  TIMEOUT: { status: 408, code: "TIMEOUT" },
  CONFLICT: { status: 409, code: "CONFLICT" },
  PRECONDITION_FAILED: { status: 412, code: "PRECONDITION_FAILED" },
  PAYLOAD_TOO_LARGE: { status: 413, code: "BODY_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: "UNSUPPORTED_MEDIA_TYPE" },
  UNPROCESSABLE_CONTENT: { status: 422, code: "UNPROCESSABLE_CONTENT" },
  TOO_MANY_REQUESTS: { status: 429, code: "TOO_MANY_REQUESTS" },
  CLIENT_CLOSED_REQUEST: { status: 499, code: "CLIENT_CLOSED_REQUEST" },
};

// An internal error passes through here more than once (tool → tRPC → formatter): log it once.
const logged = new WeakSet<object>();

/**
 * Maps any thrown value to a status, an error body and the headers the answer must carry (a
 * KilnError's own, such as BUSY's Retry-After). Client errors (Kiln's, zod's, tRPC's own refusals
 * of a request) keep their status and code and are not logged; anything else is a 500 INTERNAL,
 * logged once as `kiln: internal error`.
 */
export function toErrorBody(e: unknown): { status: number; error: ErrorBody; headers?: Record<string, string> } {
  const isTrpc = e instanceof Error && e.name === "TRPCError";
  const cause = isTrpc && e.cause ? e.cause : e;
  // tRPC's own refusals may carry a cause too (the JSON SyntaxError of a PARSE_ERROR).
  const trpcRefusal = isTrpc && !isKilnError(cause) && !isZodError(cause) ? TRPC_CLIENT_ERRORS[(e as Error & { code?: string }).code ?? ""] : undefined;
  if (trpcRefusal) {
    // tRPC reports a body it cannot parse as BAD_REQUEST caused by the JSON SyntaxError.
    const code = cause instanceof SyntaxError ? "INVALID_JSON" : trpcRefusal.code;
    return { status: trpcRefusal.status, error: { code, message: (e as Error).message } };
  }
  if (isKilnError(cause))
    return { status: cause.status, error: { code: cause.code, message: cause.message, ...(cause.details ? { details: cause.details } : {}) }, ...(cause.headers ? { headers: cause.headers } : {}) };
  if (isZodError(cause)) {
    const fields = zodFields(cause);
    const first = fields[0];
    const message = fields.length === 1 ? `Invalid parameter "${first.path || "(body)"}": ${first.message}` : `${fields.length} parameters are invalid; see details.fields.`;
    return { status: 400, error: { code: "INVALID_PARAMS", message, details: { fields } } };
  }
  const storage = storageError(cause);
  if (storage) {
    console.error(`kiln: ${storage.code}: ${(cause as Error)?.message?.split("\n").pop() ?? cause}`);
    return { status: storage.status, error: { code: storage.code, message: storage.message, ...(storage.details ? { details: storage.details } : {}) } };
  }
  const key = typeof cause === "object" && cause !== null ? cause : undefined;
  if (!key || !logged.has(key)) console.error("kiln: internal error", e);
  if (key) logged.add(key);
  return { status: 500, error: { code: "INTERNAL", message: "An internal error occurred; see the service log." } };
}
