/**
 * Soft locks (docs/teams.md, "Locks"): a person holds an object, material, scene or recipe while
 * they edit it, and a change to it by anyone else is refused with 423 LOCKED naming the holder
 * and since when. The check sits at the edge of applying operations (the workspace's `guard`
 * hook gets the records each operation would change, before anything changes) and in the
 * recipe-file tools; the scene core knows nothing of it.
 *
 * Held in memory for the per-call check (one Map lookup per changed record, nothing when no lock
 * is held) and in the SoftLock table so locks survive a restart. A lock ends when its holder
 * unlocks it, when it expires (default 30 min, renewed by the holder's activity), when the
 * holder's session ends (the Studio tab's event stream goes, an MCP session ends), or when an
 * owner breaks it (audit-logged).
 */
import type { Db } from "../db/client";
import { KilnError } from "../errors";
import { kilnEvents } from "../events/bus";
import type { LockEvent } from "../events/types";
import type { Change } from "../scene/types";
import { audit } from "./audit";
import { describeActor, type Actor } from "./actor";

export const LOCK_KINDS = ["object", "material", "scene", "recipe"] as const;
export type LockKind = (typeof LOCK_KINDS)[number];

export const DEFAULT_LOCK_MINUTES = 30;
/** Renewed expiries are written to the database at most this often per lock (memory is exact). */
const PERSIST_EVERY_MS = 60_000;
/** How often expired locks are swept (removed from the table, announced). */
const SWEEP_MS = 15_000;

/** Who holds a lock. */
export interface LockHolder { id: string | null; name: string; client: string; clientName: string | null; session: string }

export interface HeldLock {
  /** The record id it covers ("object/unity/Main/Box") or "recipe/<name>". */
  key: string;
  kind: LockKind;
  name: string;
  app: string | null;
  scene: string | null;
  holder: LockHolder;
  since: Date;
  /** Renewed by the holder's activity: the later of this and their last call plus the lock's length. */
  expiresAt: Date;
  /** The lock's length, for renewal. */
  ttlMs: number;
  /** What the database holds as expiresAt (renewals are written lazily). */
  storedExpiry: number;
}

/** What a lock is on, resolved to its key by the caller (server/tools/locks.ts). */
export interface LockTarget { key: string; kind: LockKind; name: string; app: string | null; scene: string | null }

/** The lock as tools and events show it. */
export function lockView(l: HeldLock, now = Date.now()) {
  return {
    key: l.key, kind: l.kind, name: l.name, app: l.app, scene: l.scene,
    holder: { id: l.holder.id, name: l.holder.name, client: l.holder.client, client_name: l.holder.clientName, session: l.holder.session, label: holderLabel(l.holder) },
    since: l.since.toISOString(), expires_at: new Date(Math.max(now, l.expiresAt.getTime())).toISOString(),
  };
}
export type LockView = ReturnType<typeof lockView>;

function holderLabel(h: LockHolder): string {
  return describeActor({ name: h.name, client: h.client as Actor["client"], clientName: h.clientName ?? undefined });
}

/** Who counts as the holder: the same person in team mode; the same client session in personal mode. */
const holderKey = (a: { userId?: string | null; id?: string | null; session: string }) => {
  const id = a.userId !== undefined ? a.userId : a.id;
  return id ? `user:${id}` : `session:${a.session}`;
};

/** The scene record id an object id belongs to: a scene's lock covers its objects. */
function sceneKeyOf(objectId: string): string | null {
  if (!objectId.startsWith("object/")) return null;
  const last = objectId.lastIndexOf("/");
  return `scene/${objectId.slice(7, last)}`;
}

function since(d: Date, now: number): string {
  const s = Math.max(0, Math.round((now - d.getTime()) / 1000));
  const ago = s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : `${Math.round(s / 3600)} h ago`;
  return `${d.toISOString().slice(11, 19)} UTC, ${ago}`;
}

/** 423 LOCKED for a change to `lock`'s target by someone else. */
export function lockedError(lock: HeldLock, now = Date.now()): KilnError {
  const what = lock.kind === "object" ? `The object "${lock.name}"` : lock.kind === "recipe" ? `The recipe "${lock.name}"` : `The ${lock.kind} "${lock.name}"`;
  return new KilnError(
    "LOCKED",
    `${what} is locked by ${holderLabel(lock.holder)} (since ${since(lock.since, now)}); nothing was changed.`,
    423, { lock: lockView(lock, now) },
  );
}

export class Locks {
  private readonly byKey = new Map<string, HeldLock>();
  /** Last activity per holder (holderKey), which renews their locks without touching each one. */
  private readonly activity = new Map<string, number>();
  private sweeper?: ReturnType<typeof setInterval>;

  constructor(private readonly db: Db, private readonly now: () => number = Date.now) {}

  /** Loads the locks that outlived the last run (dropping the expired ones) and starts sweeping. */
  async load(): Promise<void> {
    const now = this.now();
    await this.db.softLock.deleteMany({ where: { expiresAt: { lte: new Date(now) } } });
    for (const r of await this.db.softLock.findMany()) {
      const expiresAt = r.expiresAt.getTime();
      this.byKey.set(r.key, {
        key: r.key, kind: r.kind as LockKind, name: r.name, app: r.app, scene: r.scene,
        holder: { id: r.holderId, name: r.holderName, client: r.client, clientName: r.clientName, session: r.session },
        since: r.since, expiresAt: r.expiresAt, ttlMs: r.minutes * 60_000, storedExpiry: expiresAt,
      });
    }
    this.sweeper = setInterval(() => void this.sweep().catch((e) => console.error(`kiln: sweeping locks: ${(e as Error).message}`)), SWEEP_MS);
    this.sweeper.unref?.();
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  /** The caller did something: renews every lock they hold. O(1). */
  touch(actor: Actor): void {
    if (actor.client === "internal" || this.byKey.size === 0) return;
    this.activity.set(holderKey(actor), this.now());
  }

  /** The lock on `key` now, if one is held and not expired. */
  get(key: string, now = this.now()): HeldLock | undefined {
    const lock = this.byKey.get(key);
    if (!lock) return undefined;
    const renewed = (this.activity.get(holderKey(lock.holder)) ?? 0) + lock.ttlMs;
    if (renewed > lock.expiresAt.getTime()) lock.expiresAt = new Date(renewed);
    return lock.expiresAt.getTime() > now ? lock : undefined;
  }

  /** True when `actor` holds `lock` (the same person; in personal mode the same session). */
  isHolder(lock: HeldLock, actor: Actor): boolean {
    return holderKey(lock.holder) === holderKey(actor);
  }

  /**
   * Throws 423 LOCKED when any record `changes` touch is locked by someone other than `actor`.
   * Kiln's own work (start-up, a transaction's timeout) is not refused.
   */
  guard(changes: readonly Change[], actor: Actor): void {
    if (this.byKey.size === 0 || actor.client === "internal") return;
    const now = this.now();
    for (const c of changes) {
      this.refuseOther(c.id, actor, now);
      const scene = sceneKeyOf(c.id);
      if (scene) this.refuseOther(scene, actor, now);
    }
  }

  /** Throws 423 LOCKED when `key` is locked by someone other than `actor`. */
  refuseOther(key: string, actor: Actor, now = this.now()): void {
    if (this.byKey.size === 0 || actor.client === "internal") return;
    const lock = this.get(key, now);
    if (lock && !this.isHolder(lock, actor)) throw lockedError(lock, now);
  }

  /** Takes (or renews) a lock on `target` for `actor`; 423 when someone else holds it. */
  async lock(target: LockTarget, actor: Actor, minutes = DEFAULT_LOCK_MINUTES): Promise<{ lock: HeldLock; renewed: boolean }> {
    const now = this.now();
    const existing = this.get(target.key, now);
    if (existing && !this.isHolder(existing, actor)) throw lockedError(existing, now);
    const ttlMs = minutes * 60_000;
    const expiresAt = new Date(now + ttlMs);
    const holder: LockHolder = existing && existing.holder.session === actor.session ? existing.holder : {
      id: actor.userId, name: actor.name, client: actor.client, clientName: actor.clientName ?? null, session: actor.session,
    };
    const lock: HeldLock = { ...target, holder, since: existing?.since ?? new Date(now), expiresAt, ttlMs, storedExpiry: expiresAt.getTime() };
    const data = {
      kind: lock.kind, name: lock.name, app: lock.app, scene: lock.scene, holderId: holder.id, holderName: holder.name.slice(0, 200),
      client: holder.client, clientName: holder.clientName, session: holder.session, since: lock.since, expiresAt, minutes,
    };
    await this.db.softLock.upsert({ where: { key: lock.key }, create: { key: lock.key, ...data }, update: data });
    this.byKey.set(lock.key, lock);
    this.activity.set(holderKey(actor), now);
    if (!existing) this.announce("locked", lock);
    return { lock, renewed: !!existing };
  }

  /**
   * Releases the lock on `key`. Its holder may; anyone else gets 423, unless `breaking` (an owner's
   * `force`, checked by the tool), which is recorded in the audit log. Returns the released lock.
   */
  async unlock(key: string, actor: Actor, breaking = false): Promise<HeldLock | null> {
    const now = this.now();
    const lock = this.get(key, now);
    if (!lock) return null;
    const mine = this.isHolder(lock, actor);
    if (!mine && !breaking) throw lockedError(lock, now);
    await this.db.softLock.deleteMany({ where: { key } });
    if (this.byKey.get(key) === lock) this.byKey.delete(key);
    if (!mine) {
      await audit({
        action: "lock_broken", target: { id: lock.holder.id, name: lock.holder.name },
        details: { lock: key, kind: lock.kind, name: lock.name, since: lock.since.toISOString() },
      });
    }
    this.announce(mine ? "unlocked" : "broken", lock, mine ? undefined : actor.name);
    return lock;
  }

  /** Every lock held now, oldest first. */
  list(): HeldLock[] {
    const now = this.now();
    const out: HeldLock[] = [];
    for (const key of this.byKey.keys()) {
      const lock = this.get(key, now);
      if (lock) out.push(lock);
    }
    return out.sort((a, b) => a.since.getTime() - b.since.getTime());
  }

  /** The holder's session ended (a Studio tab closed, an MCP session ended): its locks go. */
  async endSession(session: string, userId: string | null): Promise<number> {
    const gone = [...this.byKey.values()].filter((l) => l.holder.session === session && l.holder.id === userId);
    if (gone.length === 0) return 0;
    await this.db.softLock.deleteMany({ where: { key: { in: gone.map((l) => l.key) }, session } });
    for (const l of gone) {
      if (this.byKey.get(l.key) !== l) continue;
      this.byKey.delete(l.key);
      this.announce("released", l);
    }
    return gone.length;
  }

  /** Removes expired locks and writes renewed expiries (at most every PERSIST_EVERY_MS per lock). */
  async sweep(): Promise<void> {
    const now = this.now();
    for (const [key, lock] of [...this.byKey]) {
      if (this.get(key, now)) {
        const exp = lock.expiresAt.getTime();
        if (exp - lock.storedExpiry >= PERSIST_EVERY_MS) {
          lock.storedExpiry = exp;
          await this.db.softLock.updateMany({ where: { key, session: lock.holder.session }, data: { expiresAt: lock.expiresAt } });
        }
        continue;
      }
      this.byKey.delete(key);
      await this.db.softLock.deleteMany({ where: { key, session: lock.holder.session, expiresAt: { lte: new Date(now) } } });
      this.announce("expired", lock);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  private announce(action: LockEvent["action"], lock: HeldLock, by?: string): void {
    kilnEvents().publish({ kind: "lock", action, lock: lockView(lock), ...(by ? { by } : {}) });
  }
}
