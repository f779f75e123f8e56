/**
 * Kiln's better-auth instance (docs/teams.md, "The library"): email and password with the
 * library's own hashing (scrypt), its sessions (HttpOnly, SameSite=Lax cookies; Secure when the
 * public URL is https), its rate limiting (429 on repeated sign-ins), and its API-key plugin for
 * personal access tokens (stored hashed). Kiln adds the role (viewer, editor, owner) as a user
 * field nobody can set through the library's endpoints, and stores session tokens hashed
 * (hashed-sessions.ts).
 *
 * Only the endpoints in AUTH_PATHS are reachable over HTTP (app/api/auth/[...all]); accounts,
 * invitations and tokens are managed through Kiln's tools, which check roles and write the audit
 * log. Plugins for the OAuth work to come (an OAuth 2.1 provider for /mcp) go in `plugins` below.
 */
import { betterAuth } from "better-auth/minimal";
import { createAuthMiddleware, isAPIError } from "better-auth/api";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { apiKey } from "@better-auth/api-key";
import type { KilnConfig } from "../config";
import type { Db } from "../db/client";
import { hashedSessionTokens } from "./hashed-sessions";
import { CLIENT_IP_HEADER } from "./client-ip";

/** The HTTP paths (under /api/auth) the Studio uses; every other library endpoint answers 404. */
export const AUTH_PATHS = new Set(["/sign-in/email", "/sign-out", "/get-session", "/revoke-sessions", "/change-password"]);

/** Where the library is mounted. */
export const AUTH_BASE_PATH = "/api/auth";

/** Personal access tokens start with this, so a leaked one is recognisable (secret scanners). */
export const TOKEN_PREFIX = "kiln_";

/** What the auth instance reports back to Kiln (audit log, caches). */
export interface AuthEvents {
  signedIn(user: { id: string; name: string; email: string }, ip: string | null): Promise<void>;
  signInFailed(email: string, ip: string | null, reason: string): Promise<void>;
  /** A session row is gone (sign-out, sign out everywhere, expiry clean-up, a removed member). */
  sessionEnded(session: { id: string; userId: string }): void;
  /** A person changed their own password; their other sessions may have ended. */
  passwordChanged(user: { id: string; name: string }, ip: string | null): Promise<void>;
}

export interface AuthSetup {
  db: Db;
  config: KilnConfig;
  secret: string;
  events: AuthEvents;
}

/** The better-auth instance for a Kiln project. */
export function createTeamAuth({ db, config, secret, events }: AuthSetup) {
  const https = config.publicUrl?.startsWith("https://") ?? false;
  const ipOf = (headers?: Headers) => headers?.get(CLIENT_IP_HEADER) ?? null;
  return betterAuth({
    appName: "Kiln",
    secret,
    basePath: AUTH_BASE_PATH,
    // Behind a proxy the public URL is the origin browsers use; otherwise the request's own.
    ...(config.publicUrl ? { baseURL: config.publicUrl } : {}),
    // The same origins Kiln's own check (server/api/security.ts) accepts: the Host's own, and
    // KILN_ALLOWED_ORIGINS. (The request's URL inside Next.js need not carry the Host people used.)
    trustedOrigins: (request?: Request) => {
      const host = request?.headers.get("host");
      return [...(host ? [`http://${host}`, `https://${host}`] : []), ...(config.publicUrl ? [config.publicUrl] : []), ...config.allowedOrigins];
    },
    database: hashedSessionTokens(prismaAdapter(db, { provider: config.provider })),
    emailAndPassword: {
      enabled: true,
      // Nobody signs up: the first owner comes from the set-up link, everyone else from an invitation.
      disableSignUp: true,
      minPasswordLength: 8,
      maxPasswordLength: 256,
      revokeSessionsOnPasswordReset: true,
    },
    user: {
      additionalFields: { role: { type: "string", required: true, defaultValue: "viewer", input: false } },
    },
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    rateLimit: {
      // The library enables it only when NODE_ENV is production; Kiln wants it everywhere.
      enabled: true,
      storage: "memory",
      window: 60,
      max: 200,
    },
    advanced: {
      cookiePrefix: "kiln",
      useSecureCookies: https,
      // The client's address, as server/teams/client-ip.ts worked it out (never a header the client sent).
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    telemetry: { enabled: false },
    // Failed sign-ins are in the audit log; the library's warnings about them would only repeat it.
    logger: { level: "error" },
    databaseHooks: {
      session: {
        delete: { after: async (session) => events.sessionEnded({ id: session.id, userId: session.userId }) },
      },
    },
    hooks: {
      after: createAuthMiddleware(async (ctx) => {
        const ip = ipOf(ctx.headers);
        if (ctx.path === "/sign-in/email") {
          const returned = ctx.context.returned;
          const session = ctx.context.newSession;
          if (session && !isAPIError(returned)) await events.signedIn(session.user, ip);
          else {
            const email = typeof ctx.body?.email === "string" ? ctx.body.email.slice(0, 200) : "";
            await events.signInFailed(email, ip, isAPIError(returned) ? (returned.body?.code ?? returned.message) : "unknown");
          }
        } else if (ctx.path === "/change-password" && !isAPIError(ctx.context.returned) && ctx.context.session) {
          await events.passwordChanged(ctx.context.session.user, ip);
        }
      }),
    },
    plugins: [
      apiKey({
        defaultPrefix: TOKEN_PREFIX,
        defaultKeyLength: 48,
        enableMetadata: true,
        requireName: true,
        maximumNameLength: 100,
        // Kiln's own limits apply (body size, the service's capacity); a token is not metered.
        rateLimit: { enabled: false },
        keyExpiration: { minExpiresIn: 0, maxExpiresIn: 3650 },
        startingCharactersConfig: { shouldStore: true, charactersLength: TOKEN_PREFIX.length + 4 },
      }),
    ],
  });
}

export type TeamAuth = ReturnType<typeof createTeamAuth>;
