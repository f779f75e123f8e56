/**
 * Request checks shared by every API surface: Host (DNS rebinding), Origin (cross-site calls from
 * browsers), bearer token. They run before anything is parsed or changed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { isLoopbackHost, type KilnConfig } from "../config";

/** What the Host and Origin checks need (a KilnConfig has it). */
export type OriginPolicy = Pick<KilnConfig, "allowedHosts" | "allowedOrigins">;

const list = (s?: string) => (s ?? "").split(",").map((x) => x.trim()).filter(Boolean);

/** The Host/Origin policy straight from the environment, for code that runs before Kiln starts. */
export function originPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): OriginPolicy {
  return { allowedHosts: list(env.KILN_ALLOWED_HOSTS), allowedOrigins: list(env.KILN_ALLOWED_ORIGINS) };
}
import type { ErrorBody } from "./envelope";

export interface Refusal { status: number; error: ErrorBody }

function hostName(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
}

/** Checks Host and Origin; returns a refusal or null. */
export function checkOrigin(req: Request, config: OriginPolicy): Refusal | null {
  const host = req.headers.get("host") ?? "";
  const allowedHost = isLoopbackHost(hostName(host)) || config.allowedHosts.includes(host) || config.allowedHosts.includes(hostName(host));
  if (!allowedHost)
    return { status: 403, error: { code: "HOST_REFUSED", message: `Host "${host}" is not served; add it to KILN_ALLOWED_HOSTS.` } };
  const origin = req.headers.get("origin");
  if (origin && origin !== `http://${host}` && origin !== `https://${host}` && !config.allowedOrigins.includes(origin))
    return { status: 403, error: { code: "ORIGIN_REFUSED", message: `Requests from origin ${origin} are refused; add it to KILN_ALLOWED_ORIGINS.` } };
  return null;
}

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The cookie a browser presents instead of the bearer header (set by POST /api/session). */
export const SESSION_COOKIE = "kiln_session";

/**
 * The session cookie's value for a token: an HMAC of it, so the cookie never holds the token
 * itself, and changing KILN_TOKEN ends every session.
 */
export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("kiln browser session v1").digest("base64url");
}

/** `Set-Cookie` for a session: HttpOnly (no script reads it), SameSite=Strict (no cross-site sends). */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict`;
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * True when the request carries the token: `Authorization: Bearer <token>`, or the session
 * cookie of a browser that entered it at /login. Compared in constant time.
 */
export function hasToken(headers: Headers, token: string): boolean {
  const header = headers.get("authorization") ?? "";
  if (header.startsWith("Bearer ") && sameSecret(header.slice(7), token)) return true;
  const cookie = cookieValue(headers.get("cookie"), SESSION_COOKIE);
  return cookie !== undefined && sameSecret(cookie, sessionValue(token));
}

/** Checks the bearer token (or the browser's session cookie) when KILN_TOKEN is set. */
export function checkToken(req: Request, config: KilnConfig): Refusal | null {
  if (!config.token || hasToken(req.headers, config.token)) return null;
  return { status: 401, error: { code: "UNAUTHORIZED", message: "A valid 'Authorization: Bearer <token>' header is required." } };
}

/** Both checks, in order. */
export function checkRequest(req: Request, config: KilnConfig): Refusal | null {
  return checkOrigin(req, config) ?? checkToken(req, config);
}

/**
 * Reads a body up to `limit` bytes. Returns null when it is larger; stops reading at the limit,
 * so a huge body costs no more than the limit.
 */
export async function readBody(req: Request, limit: number): Promise<string | null> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) return null;
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
