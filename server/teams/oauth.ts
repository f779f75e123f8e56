/**
 * MCP authorization (docs/teams.md, "Signing in AI clients with OAuth"), as the MCP specification
 * describes it for HTTP transports: `/mcp` is an OAuth 2.1 protected resource whose 401 names its
 * metadata (RFC 9728), and Kiln itself is the authorization server (better-auth's OAuth provider
 * through its MCP plugin, in server/teams/auth.ts: RFC 8414 metadata, dynamic client
 * registration, PKCE, the consent page in the Studio, tokens bound to `/mcp` by RFC 8707).
 *
 * This file holds what Kiln adds around the library: the names of the scopes and how they map
 * onto Kiln's permissions, the protected-resource metadata document, and the check of an access
 * token on `/mcp` (credentials.ts calls it).
 */
import { createHash } from "node:crypto";
import type { Db } from "../db/client";
import { roleAllows, type Permission, type Role } from "./actor";
import { AUTH_BASE_PATH } from "./auth";

/** The scopes a client may ask for: Kiln's reading and writing tools. */
export const OAUTH_SCOPES = ["read", "write"] as const;
/** `offline_access` lets a client keep a refresh token (the library issues one only then). */
export const OAUTH_ALL_SCOPES = [...OAUTH_SCOPES, "offline_access"] as const;

/** Access and refresh tokens start with these (not stored), so a leaked one is recognisable. */
export const OAUTH_ACCESS_PREFIX = "kilnat_";
export const OAUTH_REFRESH_PREFIX = "kilnrt_";

/** RFC 9728's well-known path; the MCP resource's own document is this plus `/mcp`. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** Where the MCP endpoint and its authorization server are, for a Kiln reached at `publicUrl`. */
export function oauthUrls(publicUrl: string) {
  return {
    /** The canonical resource identifier tokens are bound to. */
    resource: `${publicUrl}/mcp`,
    issuer: `${publicUrl}${AUTH_BASE_PATH}`,
    resourceMetadata: `${publicUrl}${RESOURCE_METADATA_PATH}/mcp`,
  };
}

/** The WWW-Authenticate challenge of `/mcp` (RFC 9728 §5.1): where its metadata is. */
export function mcpChallenge(publicUrl: string): string {
  return `Bearer realm="kiln", resource_metadata="${oauthUrls(publicUrl).resourceMetadata}", scope="${OAUTH_SCOPES.join(" ")}"`;
}

/**
 * The protected-resource metadata of `/mcp` (RFC 9728 §2). The MCP plugin serves this document
 * only at paths under its own handler; Kiln answers at the site's root, where clients look.
 */
export function protectedResourceMetadata(publicUrl: string) {
  const { resource, issuer } = oauthUrls(publicUrl);
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "Kiln",
    resource_documentation: `${publicUrl}/docs/api`,
  };
}

/** The scopes a person of `role` may grant: a viewer never grants `write`. */
export function grantableScopes(role: Role, requested: readonly string[]): string[] {
  return requested.filter((s) => s !== "write" || roleAllows(role, "write"));
}

/** The permission a set of granted scopes carries (capped again by the role on every call). */
export function permissionOfScopes(scopes: readonly string[]): Permission {
  return scopes.includes("write") ? "write" : "read";
}

/** A list column: JSON text (prisma/schema.prisma, `// list`); an array is taken as it is. */
export function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value !== "string" || !value) return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

export interface OAuthGrant {
  /** The access token's row (revocation and the audit trail name it). */
  tokenId: string;
  clientId: string;
  /** The OAuth client's own name ("Claude Desktop"), else its id. */
  clientName: string;
  userId: string;
  scope: Permission;
}

/**
 * The grant an access token carries on `/mcp`, or null: unknown, expired, revoked, issued for
 * another resource, of a disabled client, or of nobody. The library stores the token's SHA-256
 * (base64url, its "hashed" storage) without the prefix, so that is what is looked up. Every call
 * reads the row (one indexed read), so a revoked token is refused on its very next request.
 */
export async function verifyMcpAccessToken(db: Db, secret: string, resource: string): Promise<OAuthGrant | null> {
  if (!secret.startsWith(OAUTH_ACCESS_PREFIX) || secret.length > 200) return null;
  const hash = createHash("sha256").update(secret.slice(OAUTH_ACCESS_PREFIX.length)).digest("base64url");
  const row = await db.oauthAccessToken.findUnique({ where: { token: hash } });
  if (!row || row.revoked || !row.userId || row.expiresAt.getTime() <= Date.now()) return null;
  if (!listOf(row.resources).includes(resource)) return null;
  const client = await db.oauthClient.findUnique({ where: { clientId: row.clientId }, select: { name: true, disabled: true } });
  if (!client || client.disabled) return null;
  return {
    tokenId: row.id, clientId: row.clientId, clientName: client.name || row.clientId, userId: row.userId,
    scope: permissionOfScopes(listOf(row.scopes)),
  };
}
