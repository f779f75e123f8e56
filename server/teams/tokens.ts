/**
 * Personal access tokens (docs/teams.md, "Tokens") for AI clients, the CLI, CI and live apps:
 * better-auth's API-key plugin creates them (the secret is shown once; its SHA-256 is stored) and
 * checks them; Kiln adds the scope (read, write or admin, never above the holder's role), lists
 * them with their last use, and revokes them at once (the cached entry and open streams go too).
 */
import type { Db } from "../db/client";
import { KilnError, notFound } from "../errors";
import { roleAllows, roleFor, type Permission, type Role } from "./actor";
import { audit } from "./audit";
import type { TeamAuth } from "./auth";
import { scopeOf } from "./credentials";

export interface TokenInfo {
  id: string;
  name: string;
  scope: Permission;
  /** The first characters of the secret, to recognise it ("kiln_AbCd"). */
  start: string | null;
  user: { id: string; name: string };
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface TokenHooks {
  auth(): Promise<TeamAuth>;
  revoked(tokenId: string): void;
}

const DURATION = /^(\d{1,5})\s*([hdwmy])$/;
const UNIT_SECONDS: Record<string, number> = { h: 3600, d: 86400, w: 7 * 86400, m: 30 * 86400, y: 365 * 86400 };

/** Seconds of "30d", "12h", "8w", "6m", "1y"; null for "never". Throws INVALID_PARAMS otherwise. */
export function parseExpiry(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === "never") return null;
  const m = DURATION.exec(t);
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2]] : 0;
  if (!m || seconds <= 0 || seconds > 10 * 365 * 86400)
    throw new KilnError("INVALID_PARAMS", `"${text}" is not a lifetime: use a number with h, d, w, m or y (30d, 12h, 1y; at most 10y), or never.`, 400, {
      fields: [{ path: "expires", message: "such as 30d, 12h, 1y or never" }],
    });
  return seconds;
}

export class Tokens {
  constructor(private readonly db: Db, private readonly hooks: TokenHooks) {}

  /** Creates a token acting as `user`; the result holds the secret, which is never shown again. */
  async create(user: { id: string; name: string; role: Role }, input: { name: string; scope: Permission; expiresIn: number | null }) {
    if (!roleAllows(user.role, input.scope))
      throw new KilnError("FORBIDDEN", `A ${input.scope} token needs the ${roleFor(input.scope)} role; ${user.name} is ${article(user.role)} ${user.role}.`, 403, {
        required_role: roleFor(input.scope), role: user.role,
      });
    const auth = await this.hooks.auth();
    const created = await auth.api.createApiKey({
      body: { userId: user.id, name: input.name, permissions: { kiln: [input.scope] }, ...(input.expiresIn ? { expiresIn: input.expiresIn } : {}) },
    });
    await audit({ action: "token_created", target: { id: created.id, name: `${input.name} (${user.name})` }, details: { scope: input.scope, user: user.id, expires_at: created.expiresAt ?? null } });
    return { token: created.key, ...this.info(created, user) };
  }

  /** Tokens of one person, or of everyone when `userId` is null. */
  async list(userId: string | null): Promise<TokenInfo[]> {
    const rows = await this.db.apikey.findMany({ where: userId ? { referenceId: userId } : {}, orderBy: { createdAt: "desc" } });
    const users = new Map((await this.db.user.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.referenceId))] } }, select: { id: true, name: true } })).map((u) => [u.id, u]));
    return rows.map((r) => this.info(r, users.get(r.referenceId) ?? { id: r.referenceId, name: "(removed)" }));
  }

  /** The token's holder, or TOKEN_NOT_FOUND. */
  async holder(tokenId: string): Promise<{ tokenId: string; userId: string; name: string }> {
    const row = await this.db.apikey.findUnique({ where: { id: tokenId }, select: { id: true, referenceId: true, name: true } });
    if (!row) throw notFound("TOKEN_NOT_FOUND", `No token has the id "${tokenId}"; list_tokens lists them.`);
    return { tokenId: row.id, userId: row.referenceId, name: row.name ?? "" };
  }

  /** Revokes a token: its next request is refused, and its open streams close now. */
  async revoke(tokenId: string) {
    const { name, userId } = await this.holder(tokenId);
    await this.db.apikey.deleteMany({ where: { id: tokenId } });
    this.hooks.revoked(tokenId);
    await audit({ action: "token_revoked", target: { id: tokenId, name }, details: { user: userId } });
    return { id: tokenId, name, revoked: true as const };
  }

  private info(
    r: { id: string; name?: string | null; permissions?: unknown; start?: string | null; createdAt: Date | string; expiresAt?: Date | string | null; lastRequest?: Date | string | null },
    user: { id: string; name: string },
  ): TokenInfo {
    const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
    const permissions = typeof r.permissions === "string" ? safeParse(r.permissions) : r.permissions;
    return {
      id: r.id, name: r.name ?? "", scope: scopeOf(permissions), start: r.start ?? null, user: { id: user.id, name: user.name },
      created_at: iso(r.createdAt)!, expires_at: iso(r.expiresAt), last_used_at: iso(r.lastRequest),
    };
  }
}

const article = (role: string) => (/^[aeiou]/.test(role) ? "an" : "a");

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

