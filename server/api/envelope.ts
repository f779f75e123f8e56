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

/** Maps any thrown value to a status and an error body. Unknown errors become 500 INTERNAL. */
export function toErrorBody(e: unknown): { status: number; error: ErrorBody } {
  const cause = e instanceof Error && e.name === "TRPCError" && e.cause ? e.cause : e;
  if (isKilnError(cause)) return { status: cause.status, error: { code: cause.code, message: cause.message, ...(cause.details ? { details: cause.details } : {}) } };
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
  console.error("kiln: internal error", e);
  return { status: 500, error: { code: "INTERNAL", message: "An internal error occurred; see the service log." } };
}
