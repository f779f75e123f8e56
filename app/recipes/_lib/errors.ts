/**
 * What a failed tRPC call tells a person. The procedures throw KilnErrors (their message is one
 * readable sentence) or zod errors from input validation (their message is the JSON list of
 * issues); the route itself may refuse the request (403, 401 with a token set) before tRPC runs.
 */

/** A failure as the builder shows it. */
export interface ReadableError {
  message: string;
  /** HTTP status when known (401 asks for the access token). */
  status?: number;
}

interface ClientErrorLike {
  message?: unknown;
  data?: { httpStatus?: unknown } | null;
  meta?: { response?: { status?: unknown } };
  cause?: unknown;
}

/** Zod's issue list (its error message is JSON) → "name: must not be empty; width: …". */
function zodIssues(message: string): string | undefined {
  if (!message.startsWith("[")) return undefined;
  try {
    const issues = JSON.parse(message) as { path?: unknown[]; message?: string }[];
    if (!Array.isArray(issues) || issues.length === 0) return undefined;
    return issues
      .map((i) => (Array.isArray(i.path) && i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : String(i.message)))
      .join("; ");
  } catch {
    return undefined;
  }
}

/** Any thrown value from a tRPC call → a sentence (and the status when there is one). */
export function readableError(error: unknown): ReadableError {
  const e = (typeof error === "object" && error !== null ? error : {}) as ClientErrorLike;
  const statusValue = e.data?.httpStatus ?? e.meta?.response?.status;
  const status = typeof statusValue === "number" ? statusValue : undefined;
  const raw = typeof e.message === "string" ? e.message : String(error);
  if (status === 401) return { status, message: "Kiln needs its access token (KILN_TOKEN) for this." };
  if (status === 403) return { status, message: "Kiln refused this page's origin; open the builder from Kiln's own address." };
  if (/Failed to fetch|NetworkError|fetch failed|Load failed/i.test(raw)) {
    return { status, message: "Kiln is not answering; is the service still running?" };
  }
  if (/Unable to transform response|Unexpected token/i.test(raw)) {
    return { status, message: `Kiln answered with something that is not a tool result${status ? ` (HTTP ${status})` : ""}.` };
  }
  return { status, message: zodIssues(raw) ?? raw };
}
