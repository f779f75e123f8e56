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
 * log. The OAuth 2.1 provider for /mcp (better-auth's MCP plugin over its OAuth provider) adds
 * the authorization server's endpoints in OAUTH_PATHS (server/teams/oauth.ts says what Kiln adds).
 */
import { betterAuth } from "better-auth/minimal";
import { APIError, createAuthMiddleware, getSessionFromCtx, isAPIError } from "better-auth/api";
import { mcp } from "@better-auth/mcp";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { apiKey } from "@better-auth/api-key";
import type { KilnConfig } from "../config";
import type { Db } from "../db/client";
import { hashedSessionTokens } from "./hashed-sessions";
import { CLIENT_IP_HEADER } from "./client-ip";
import { grantableScopes, OAUTH_ACCESS_PREFIX, OAUTH_ALL_SCOPES, OAUTH_REFRESH_PREFIX, oauthUrls } from "./oauth";
import { ROLES, type Role } from "./actor";

/** The HTTP paths (under /api/auth) the Studio uses; every other library endpoint answers 404. */
export const AUTH_PATHS = new Set(["/sign-in/email", "/sign-out", "/get-session", "/revoke-sessions", "/change-password"]);

/**
 * The authorization server's endpoints MCP clients use (metadata, dynamic client registration,
 * authorize, token, revoke) and the consent page's. Managing clients and resources through the
 * library's admin endpoints is not exposed.
 */
export const OAUTH_PATHS = new Set([
  "/.well-known/oauth-authorization-server", "/oauth2/register", "/oauth2/authorize", "/oauth2/token", "/oauth2/revoke", "/oauth2/consent",
]);

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
  /** Where people reach Kiln (Teams.publicUrl()): the issuer and the /mcp resource derive from it. */
  publicUrl: string;
}

/** The better-auth instance for a Kiln project. */
export function createTeamAuth({ db, config, secret, events, publicUrl }: AuthSetup) {
  const https = config.publicUrl?.startsWith("https://") ?? false;
  const ipOf = (headers?: Headers) => headers?.get(CLIENT_IP_HEADER) ?? null;
  return betterAuth({
    appName: "Kiln",
    secret,
    basePath: AUTH_BASE_PATH,
    // The OAuth issuer and the /mcp resource must be one fixed URL (RFC 8414, RFC 8707): behind a
    // proxy KILN_PUBLIC_URL, else the address Kiln listens on.
    baseURL: publicUrl,
    // The same origins Kiln's own check (server/api/security.ts) accepts: the Host's own, and
    // KILN_ALLOWED_ORIGINS. (The request's URL inside Next.js need not carry the Host people used.)
    trustedOrigins: (request?: Request) => {
      const host = request?.headers.get("host");
      return [...(host ? [`http://${host}`, `https://${host}`] : []), ...(config.publicUrl ? [config.publicUrl] : []), ...config.allowedOrigins];
    },
    // The adapter's `provider` decides two things only: whether lists (the OAuth models' scopes,
    // redirect URIs, resources) are native arrays, and whether string filters use Prisma's `mode`.
    // Kiln keeps lists as JSON text on both databases (prisma/schema.prisma, `// list`; Prisma's
    // lists cannot be null, which the library writes) and compares lowercased emails, so the
    // adapter works alike on both: as for SQLite.
    database: hashedSessionTokens(prismaAdapter(db, { provider: "sqlite" })),
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
      before: createAuthMiddleware(async (ctx) => {
        // A viewer cannot grant a client `write`, even by calling the consent endpoint directly.
        if (ctx.path !== "/oauth2/consent" || ctx.body?.accept !== true) return;
        const session = await getSessionFromCtx(ctx);
        const role = asRole((session?.user as { role?: unknown } | undefined)?.role);
        const query = typeof ctx.body?.oauth_query === "string" ? new URLSearchParams(ctx.body.oauth_query) : null;
        const asked = String(ctx.body?.scope ?? query?.get("scope") ?? "").split(" ").filter(Boolean);
        if (grantableScopes(role, asked).length !== asked.length)
          throw new APIError("FORBIDDEN", { code: "FORBIDDEN", message: `A ${role} cannot grant a client the "write" scope.` });
      }),
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
      mcp({
        resource: oauthUrls(publicUrl).resource,
        loginPage: "/sign-in",
        consentPage: "/oauth/consent",
        scopes: [...OAUTH_ALL_SCOPES],
        // Opaque access tokens, stored hashed and looked up on every call: revoking one takes
        // effect at once, which a self-contained JWT would not (server/teams/oauth.ts).
        disableJwtPlugin: true,
        storeTokens: "hashed",
        // MCP clients register themselves (RFC 7591) as public clients with PKCE; each person
        // still signs in and consents, and every token is bound to /mcp.
        allowDynamicClientRegistration: true,
        allowUnauthenticatedClientRegistration: true,
        clientRegistrationRequirePKCE: true,
        // Only the authorization-code flow for a person: no tokens for clients on their own.
        grantTypes: ["authorization_code", "refresh_token"],
        accessTokenExpiresIn: 3600,
        prefix: { opaqueAccessToken: OAUTH_ACCESS_PREFIX, refreshToken: OAUTH_REFRESH_PREFIX },
        // Open registration is limited per address; 5 a minute (the default) is tight for a
        // team behind one proxy address.
        rateLimit: { register: { window: 60, max: 20 } },
      }),
    ],
  });
}

export type TeamAuth = ReturnType<typeof createTeamAuth>;

const asRole = (r: unknown): Role => ((ROLES as readonly unknown[]).includes(r) ? (r as Role) : "viewer");
