/**
 * Who a request in team mode comes from: a personal access token (`Authorization: Bearer
 * kiln_...`), the browser's session cookie, or the operator credential of `.kiln/team.json` from
 * this machine. The answer is a Caller (server/teams/actor.ts) or a 401.
 *
 * Both kinds of credential are cached, so a call costs one SHA-256 (tokens) or one map lookup
 * (cookies) rather than a database read or a password hash: the library checks a credential the
 * first time it is seen (signature, expiry, database row), and Kiln drops the cached entry the
 * moment the row changes (revoked token, ended session, removed member, new role), so a revoked
 * credential is refused on its very next request. Entries are also re-checked after CACHE_MS, as
 * a bound on any change made outside this process.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { sessionOf } from "../api/caller";
import { CLIENT_HEADER } from "../events/source";
import type { EventSource } from "../events/types";
import type { Db } from "../db/client";
import { ROLES, systemUser, type Actor, type Caller, type ClientKind, type Permission, type Role } from "./actor";
import type { TeamAuth } from "./auth";
import { TOKEN_PREFIX } from "./auth";
import { fromThisMachine } from "./client-ip";
import { OAUTH_ACCESS_PREFIX, verifyMcpAccessToken } from "./oauth";

/** How long a cached credential is trusted before the database is asked again. */
const CACHE_MS = 5 * 60_000;
/** How often a token's last use is written back (the list shows it to the minute). */
const LAST_USE_WRITE_MS = 60_000;
/** Unknown tokens remembered, so guessing costs no database read; bounded. */
const MAX_UNKNOWN = 10_000;

export interface Refusal { status: 401; code: "UNAUTHORIZED"; message: string }

/** A resolved request: the caller, and the browser session it came with (streams close with it). */
export interface Resolved { caller: Caller; sessionId?: string }

export type Resolution = Resolved | { refusal: Refusal };

interface Person { userId: string; name: string; role: Role }
interface SessionEntry extends Person { sessionId: string; expiresAt: number; checkedAt: number }
interface TokenEntry extends Person { tokenId: string; tokenName: string; scope: Permission; expiresAt: number | null; checkedAt: number; lastUseWritten: number }

const NO_CREDENTIALS: Refusal = {
  status: 401, code: "UNAUTHORIZED",
  message: "Sign in, or send 'Authorization: Bearer <personal access token>' (Kiln runs in team mode).",
};
const BAD_TOKEN: Refusal = { status: 401, code: "UNAUTHORIZED", message: "That access token is not valid: unknown, revoked or expired." };

const sha256 = (s: string) => createHash("sha256").update(s).digest("base64url");
const asRole = (r: unknown): Role => ((ROLES as readonly unknown[]).includes(r) ? (r as Role) : "viewer");

function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The client kind and operation-log source of a request on an HTTP surface (as in personal mode). */
export function clientOf(headers: Headers, client: ClientKind): { kind: ClientKind; source: EventSource } {
  const kind: ClientKind = client === "http" && headers.get(CLIENT_HEADER) === "cli" ? "cli" : client;
  return { kind, source: kind === "cli" ? "cli" : kind === "mcp" ? "mcp" : client === "live" ? "live" : "http" };
}

export class Credentials {
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly tokens = new Map<string, TokenEntry>();
  private readonly unknown = new Set<string>();
  private operatorSecret?: Buffer;

  constructor(
    private readonly db: Db,
    private readonly auth: () => Promise<TeamAuth>,
    /** The operator credential (read from .kiln/team.json on first use). */
    private readonly operator: () => string,
    /** The session cookie's name (with the __Secure- prefix behind https). */
    readonly cookieName: string,
    /** The /mcp resource identifier OAuth access tokens must be bound to (server/teams/oauth.ts). */
    private readonly mcpResource: () => string = () => "",
  ) {}

  /** Resolves a request's credential to a caller on surface `client`. */
  async resolve(headers: Headers, client: ClientKind): Promise<Resolution> {
    const { kind, source } = clientOf(headers, client);
    const auth = headers.get("authorization");
    if (auth !== null) {
      if (!auth.startsWith("Bearer ")) return { refusal: NO_CREDENTIALS };
      const secret = auth.slice(7).trim();
      if (this.isOperator(secret)) {
        if (!fromThisMachine(headers)) return { refusal: { ...BAD_TOKEN, message: "The operator credential is accepted from this machine only." } };
        return { caller: { source, actor: this.operatorActor(kind, sessionOf(headers)) } };
      }
      if (secret.startsWith(OAUTH_ACCESS_PREFIX)) return this.oauth(secret, headers, client);
      const token = await this.token(secret);
      if (!token) return { refusal: BAD_TOKEN };
      return {
        caller: {
          source,
          actor: {
            userId: token.userId, name: token.name, role: token.role, client: kind,
            token: { id: token.tokenId, name: token.tokenName, scope: token.scope },
            session: sessionOf(headers) ?? `token:${token.tokenId}`,
          },
        },
      };
    }
    const cookie = cookieValue(headers.get("cookie"), this.cookieName);
    if (!cookie) return { refusal: NO_CREDENTIALS };
    const session = await this.session(cookie, headers);
    if (!session) return { refusal: { ...NO_CREDENTIALS, message: "The session has ended; sign in again." } };
    return {
      caller: { source, actor: { userId: session.userId, name: session.name, role: session.role, client: kind, session: sessionOf(headers) ?? `web:${session.sessionId}` } },
      sessionId: session.sessionId,
    };
  }

  /**
   * An OAuth access token: accepted on /mcp only, the resource it is bound to. The call runs as
   * the person who consented, through the client "mcp", with the OAuth client's name as the
   * token's name; its scope (read or write) caps the person's role as a personal token's does.
   */
  private async oauth(secret: string, headers: Headers, client: ClientKind): Promise<Resolution> {
    if (client !== "mcp") return { refusal: { ...BAD_TOKEN, message: "An OAuth access token is accepted on /mcp only, the resource it was issued for." } };
    const grant = await verifyMcpAccessToken(this.db, secret, this.mcpResource());
    const user = grant ? await this.db.user.findUnique({ where: { id: grant.userId }, select: { id: true, name: true, role: true } }) : null;
    if (!grant || !user) return { refusal: BAD_TOKEN };
    return {
      caller: {
        source: "mcp",
        actor: {
          userId: user.id, name: user.name, role: asRole(user.role), client: "mcp",
          token: { id: `oauth:${grant.clientId}`, name: grant.clientName, scope: grant.scope },
          session: sessionOf(headers) ?? `oauth:${grant.tokenId}`,
        },
      },
    };
  }

  /** The operator: the machine's user, acting as an owner (docs/teams.md, "The command line"). */
  operatorActor(client: ClientKind, session?: string): Actor {
    return { userId: null, name: `${systemUser()} (operator)`, role: "owner", client, session: session ?? `operator:${client}` };
  }

  isOperator(secret: string): boolean {
    const expected = (this.operatorSecret ??= Buffer.from(this.operator()));
    const given = Buffer.from(secret);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private async session(cookie: string, headers: Headers): Promise<SessionEntry | null> {
    const now = Date.now();
    const cached = this.sessions.get(cookie);
    if (cached && cached.expiresAt > now && now - cached.checkedAt < CACHE_MS) return cached;
    if (cached) this.sessions.delete(cookie);
    const auth = await this.auth();
    // Only the cookie goes to the library: it checks the signature and the session row.
    const found = await auth.api.getSession({ headers: new Headers({ cookie: headers.get("cookie") ?? "" }), query: { disableRefresh: true } }).catch(() => null);
    if (!found) return null;
    const user = found.user as { id: string; name: string; role?: unknown };
    const entry: SessionEntry = {
      userId: user.id, name: user.name, role: asRole(user.role), sessionId: found.session.id,
      expiresAt: new Date(found.session.expiresAt).getTime(), checkedAt: now,
    };
    this.sessions.set(cookie, entry);
    return entry;
  }

  private async token(secret: string): Promise<TokenEntry | null> {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) return null;
    const hash = sha256(secret);
    const now = Date.now();
    const cached = this.tokens.get(hash);
    if (cached && (cached.expiresAt === null || cached.expiresAt > now) && now - cached.checkedAt < CACHE_MS) {
      if (now - cached.lastUseWritten > LAST_USE_WRITE_MS) this.recordUse(cached, now);
      return cached;
    }
    if (cached) this.tokens.delete(hash);
    if (this.unknown.has(hash)) return null;
    const auth = await this.auth();
    const verified = await auth.api.verifyApiKey({ body: { key: secret } }).catch(() => null);
    const key = verified?.valid ? verified.key : null;
    const user = key ? await this.db.user.findUnique({ where: { id: key.referenceId }, select: { id: true, name: true, role: true } }) : null;
    if (!key || !user) {
      if (this.unknown.size >= MAX_UNKNOWN) this.unknown.clear();
      this.unknown.add(hash);
      return null;
    }
    const entry: TokenEntry = {
      userId: user.id, name: user.name, role: asRole(user.role), tokenId: key.id, tokenName: key.name ?? "",
      scope: scopeOf(key.permissions), expiresAt: key.expiresAt ? new Date(key.expiresAt).getTime() : null, checkedAt: now, lastUseWritten: 0,
    };
    this.tokens.set(hash, entry);
    this.recordUse(entry, now);
    return entry;
  }

  private recordUse(entry: TokenEntry, now: number): void {
    entry.lastUseWritten = now;
    this.db.apikey.updateMany({ where: { id: entry.tokenId }, data: { lastRequest: new Date(now) } }).catch(() => undefined);
  }

  /** Forgets a revoked token at once. */
  forgetToken(tokenId: string): void {
    for (const [k, e] of this.tokens) if (e.tokenId === tokenId) this.tokens.delete(k);
  }

  /** Forgets an ended browser session at once. */
  forgetSession(sessionId: string): void {
    for (const [k, e] of this.sessions) if (e.sessionId === sessionId) this.sessions.delete(k);
  }

  /** Forgets everything cached for a person (removed, new role, new password). */
  forgetUser(userId: string): void {
    for (const [k, e] of this.sessions) if (e.userId === userId) this.sessions.delete(k);
    for (const [k, e] of this.tokens) if (e.userId === userId) this.tokens.delete(k);
  }

  /** Cached entries (tests and the benchmark check that calls hit the cache). */
  get cached(): { sessions: number; tokens: number } {
    return { sessions: this.sessions.size, tokens: this.tokens.size };
  }
}

/** A token's scope from the plugin's permissions ({"kiln": ["write"]}); read when unreadable. */
export function scopeOf(permissions: unknown): Permission {
  const list = (permissions as { kiln?: unknown } | null)?.kiln;
  const scope = Array.isArray(list) ? list[0] : undefined;
  return scope === "admin" || scope === "write" ? scope : "read";
}
