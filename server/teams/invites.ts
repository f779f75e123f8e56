/**
 * One-time links (docs/teams.md, "Inviting"): the first owner's set-up link, invitations, and
 * password resets. The link carries 32 random bytes; the database keeps only their SHA-256, the
 * kind, the role and who made it. Using a link marks it used in the same statement that checks it
 * is unused and unexpired, so two tabs cannot both use one.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Db } from "../db/client";
import { KilnError } from "../errors";
import type { Role } from "./actor";

export const INVITE_KINDS = ["setup", "invite", "reset"] as const;
export type InviteKind = (typeof INVITE_KINDS)[number];

/** How long each kind of link stays valid. */
export const LINK_LIFETIME_MS: Record<InviteKind, number> = { setup: 24 * 3600_000, invite: 7 * 24 * 3600_000, reset: 24 * 3600_000 };

/** The path of a link's page: /setup/<secret>, /invite/<secret>, /reset/<secret>. */
export const linkPath = (kind: InviteKind, secret: string) => `/${kind}/${secret}`;

export interface Invite {
  id: string;
  kind: InviteKind;
  role: Role;
  email: string | null;
  name: string | null;
  userId: string | null;
  expiresAt: Date;
}

export interface NewLink { id: string; kind: InviteKind; path: string; expiresAt: Date; secret: string }

const SECRET = /^[A-Za-z0-9_-]{43}$/;
const hashOf = (secret: string) => createHash("sha256").update(secret).digest("base64url");

/** Creates a link; only its hash is stored. */
export async function createLink(
  db: Db, kind: InviteKind, fields: { role: Role; email?: string; name?: string; userId?: string; createdBy?: string | null },
): Promise<NewLink> {
  const secret = randomBytes(32).toString("base64url");
  const id = randomUUID();
  const expiresAt = new Date(Date.now() + LINK_LIFETIME_MS[kind]);
  await db.invite.create({
    data: {
      id, kind, tokenHash: hashOf(secret), role: fields.role, email: fields.email ?? null, name: fields.name ?? null,
      userId: fields.userId ?? null, createdBy: fields.createdBy ?? null, expiresAt,
    },
  });
  return { id, kind, path: linkPath(kind, secret), expiresAt, secret };
}

const notValid = () => new KilnError("LINK_NOT_VALID", "This link is not valid: it was used already, has expired, or was replaced by a newer one.", 404);

/** The unused, unexpired link of this secret, or LINK_NOT_VALID (404). */
export async function findLink(db: Db, kind: InviteKind, secret: string): Promise<Invite> {
  if (!SECRET.test(secret)) throw notValid();
  const row = await db.invite.findUnique({ where: { tokenHash: hashOf(secret) } });
  if (!row || row.kind !== kind || row.usedAt || row.expiresAt.getTime() <= Date.now()) throw notValid();
  return { id: row.id, kind, role: row.role as Role, email: row.email, name: row.name, userId: row.userId, expiresAt: row.expiresAt };
}

/** Marks a link used; throws LINK_NOT_VALID when another request used it first. */
export async function useLink(db: Db, invite: Invite): Promise<void> {
  const { count } = await db.invite.updateMany({ where: { id: invite.id, usedAt: null, expiresAt: { gt: new Date() } }, data: { usedAt: new Date() } });
  if (count !== 1) throw notValid();
}

/** Ends every unused link of a kind (a new set-up link replaces the last one). */
export async function dropLinks(db: Db, kind: InviteKind, userId?: string): Promise<void> {
  await db.invite.updateMany({ where: { kind, usedAt: null, ...(userId ? { userId } : {}) }, data: { expiresAt: new Date() } });
}
