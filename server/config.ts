/**
 * Environment configuration, validated once with zod so a bad value fails at start-up with a
 * clear message instead of misbehaving later (as t3's env.js does).
 */
import path from "node:path";
import { z } from "zod";
import { APPS } from "./scene/types";

const envSchema = z.object({
  KILN_HOME: z.string().optional(),
  DATABASE_URL: z.string().optional(),
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  KILN_TOKEN: z.string().min(8, "KILN_TOKEN must be at least 8 characters").optional(),
  KILN_ALLOWED_ORIGINS: z.string().optional(),
  KILN_ALLOWED_HOSTS: z.string().optional(),
  KILN_BODY_LIMIT: z.coerce.number().int().min(1024).default(1024 * 1024),
  KILN_DEFAULT_APP: z.enum(APPS).default("unity"),
  KILN_AUTH: z.enum(["personal", "team"], { error: "KILN_AUTH must be personal or team" }).default("personal"),
  KILN_PUBLIC_URL: z.url({ protocol: /^https?$/, error: "KILN_PUBLIC_URL must be an http:// or https:// URL" }).optional(),
  KILN_TRUSTED_PROXIES: z.string().optional(),
  KILN_AUTH_SECRET: z.string().min(32, "KILN_AUTH_SECRET must be at least 32 characters").optional(),
  KILN_SMTP_URL: z.url({ protocol: /^smtps?$/, error: "KILN_SMTP_URL must be smtp://... or smtps://..." }).optional(),
  KILN_MAIL_FROM: z.string().optional(),
});

export interface KilnConfig {
  projectDir: string;
  home: string;
  databaseUrl: string;
  provider: "sqlite" | "postgresql";
  host: string;
  port: number;
  token?: string;
  allowedOrigins: string[];
  allowedHosts: string[];
  bodyLimit: number;
  defaultApp: (typeof APPS)[number];
  /**
   * personal (the default): loopback, nobody signs in, KILN_TOKEN is the one shared token.
   * team: every request needs a signed-in person or a personal access token (docs/teams.md).
   */
  auth: "personal" | "team";
  /** The address people reach Kiln at (behind a reverse proxy: its https:// URL), for links and cookies. */
  publicUrl?: string;
  /** Reverse proxies (IPs or CIDR ranges) whose X-Forwarded-For names the client (rate limits, audit). */
  trustedProxies: string[];
  /** Signs session cookies; by default a random secret kept in .kiln/team.json. */
  authSecret?: string;
  /** Invitations and password resets are also mailed when set; otherwise the owner copies the link. */
  smtpUrl?: string;
  mailFrom?: string;
}

const list = (s?: string) => (s ?? "").split(",").map((x) => x.trim()).filter(Boolean);

/** Reads and validates the configuration from an environment (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, projectDir = process.cwd()): KilnConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const what = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid Kiln configuration: ${what}`);
  }
  const e = parsed.data;
  const home = path.resolve(projectDir, e.KILN_HOME ?? ".kiln");
  const databaseUrl = e.DATABASE_URL || `file:${path.join(home, "kiln.db")}`;
  const provider = /^postgres(ql)?:\/\//.test(databaseUrl) ? "postgresql" : "sqlite";
  if (provider === "sqlite" && !databaseUrl.startsWith("file:"))
    throw new Error(`Invalid Kiln configuration: DATABASE_URL must be file:... (SQLite) or postgresql://...`);
  return {
    projectDir, home, databaseUrl, provider, host: e.HOST, port: e.PORT, token: e.KILN_TOKEN,
    allowedOrigins: list(e.KILN_ALLOWED_ORIGINS), allowedHosts: list(e.KILN_ALLOWED_HOSTS),
    bodyLimit: e.KILN_BODY_LIMIT, defaultApp: e.KILN_DEFAULT_APP,
    auth: e.KILN_AUTH, publicUrl: e.KILN_PUBLIC_URL?.replace(/\/+$/, ""), trustedProxies: list(e.KILN_TRUSTED_PROXIES),
    authSecret: e.KILN_AUTH_SECRET, smtpUrl: e.KILN_SMTP_URL, mailFrom: e.KILN_MAIL_FROM,
  };
}

/** Loopback names and addresses: the only hosts served without configuration. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith(".localhost");
}
