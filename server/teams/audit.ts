/**
 * The audit log: who signed in (or failed to), created or revoked tokens, added or removed
 * members, changed roles, reset passwords, broke locks. One row per event in AuditEntry, written
 * before the change is answered. `audit(entry)` is the one way to add to it; whoever is calling
 * (server/teams/actor.ts) is recorded as the actor unless the entry names one.
 */
import type { Db } from "../db/client";
import { currentCaller } from "./actor";

/** What is recorded; kept as data (the tool and the Studio page list them). */
export const AUDIT_ACTIONS = [
  "sign_in", "sign_in_failed", "owner_set_up", "member_invited", "member_added", "member_removed", "role_changed",
  "password_reset", "password_changed", "token_created", "token_revoked", "lock_broken",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditInput {
  action: AuditAction;
  /** Who did it; by default the current caller. */
  actor?: { id: string | null; name: string };
  /** What it was done to: a person, a token, a lock. */
  target?: { id?: string | null; name: string };
  ip?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: number;
  at: string;
  action: string;
  actor: { id: string | null; name: string };
  target: { id: string | null; name: string } | null;
  ip: string | null;
  details: Record<string, unknown>;
}

// On globalThis: Next.js may load this module once per route bundle, and the locks or tools
// calling audit() must reach the log the running Kiln opened.
const KEY = Symbol.for("kiln.teams.audit-db");
const holder = globalThis as { [KEY]?: Db };

/** Points audit() at a database (the running Kiln's, at start-up). */
export function openAuditLog(db: Db): void {
  holder[KEY] = db;
}

/**
 * Records an event in the audit log of the running Kiln. Awaited by the callers that change
 * something, so an answered change is always in the log; a failure to write is thrown.
 */
export async function audit(entry: AuditInput): Promise<void> {
  const db = holder[KEY];
  if (!db) throw new Error("The audit log is not open (Kiln has not started).");
  const { actor } = currentCaller();
  const who = entry.actor ?? { id: actor.userId, name: actor.name };
  await db.auditEntry.create({
    data: {
      action: entry.action, actorId: who.id, actorName: who.name.slice(0, 200),
      targetId: entry.target?.id ?? null, targetName: entry.target?.name.slice(0, 200) ?? null,
      ip: entry.ip ?? null, details: JSON.stringify(entry.details ?? {}),
    },
  });
}

/** Entries, newest first, optionally of one action or one person (as actor or target). */
export async function readAuditLog(
  db: Db, q: { limit: number; offset: number; action?: string; user?: string },
): Promise<{ entries: AuditEntry[]; total: number }> {
  const where = {
    ...(q.action ? { action: q.action } : {}),
    ...(q.user ? { OR: [{ actorId: q.user }, { targetId: q.user }] } : {}),
  };
  const [rows, total] = await Promise.all([
    db.auditEntry.findMany({ where, orderBy: { id: "desc" }, take: q.limit, skip: q.offset }),
    db.auditEntry.count({ where }),
  ]);
  return {
    total,
    entries: rows.map((r) => ({
      id: r.id, at: r.at.toISOString(), action: r.action, actor: { id: r.actorId, name: r.actorName },
      target: r.targetName === null ? null : { id: r.targetId, name: r.targetName }, ip: r.ip,
      details: safeJson(r.details),
    })),
  };
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
