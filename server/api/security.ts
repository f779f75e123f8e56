/**
 * Request checks shared by every API surface: Host (DNS rebinding), Origin (cross-site calls from
 * browsers), bearer token. They run before anything is parsed or changed.
 */
import { timingSafeEqual } from "node:crypto";
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

/** Checks the bearer token when KILN_TOKEN is set. */
export function checkToken(req: Request, config: KilnConfig): Refusal | null {
  if (!config.token) return null;
  const header = req.headers.get("authorization") ?? "";
  const given = Buffer.from(header.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = Buffer.from(config.token);
  if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
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
