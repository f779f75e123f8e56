/**
 * Presence (docs/teams.md, "Presence"): who is here now. People in the Studio (the page, scene,
 * selected object and recipe their tab reports), agents (a client session's calls: its client
 * name and last call) and, beside them, the live applications (server/bridges) with who runs them.
 *
 * It is "now", so it lives in memory only: one Map entry per client session, updated in O(1) on
 * each call (`seen`). A session with an open event stream stays until the stream goes (after a
 * short grace, so a reconnect is not a departure); one without a stream leaves after IDLE_MS
 * without a call. Arrivals, Studio moves and departures are announced on `/events` ("presence").
 * Each call does not announce anything: an agent's "last call" is read with `list_presence`.
 */
import { kilnEvents } from "../events/bus";
import { describeActor, type Actor } from "./actor";

/** A session without an open event stream is gone after this long without a call. */
export const IDLE_MS = 5 * 60_000;
/** A closed event stream counts as leaving only if no new one opens within this (EventSource reconnects after 1 s). */
export const STREAM_GRACE_MS = 5_000;
const SWEEP_MS = 30_000;

/** Where a Studio tab is: what it reports with `report_presence`. */
export interface StudioPlace { page: string; scene: string | null; selected: string | null; recipe: string | null }

interface Entry {
  /** The map key: the person and the session, so naming someone else's session (`?session=` on /events) never ends theirs. */
  key: string;
  session: string;
  actor: Actor;
  since: number;
  lastSeen: number;
  lastTool: string | null;
  place: StudioPlace | null;
  streams: number;
  leaving?: ReturnType<typeof setTimeout>;
}

export function presenceView(e: Entry) {
  const a = e.actor;
  return {
    session: e.session, user_id: a.userId, name: a.name, initials: initialsOf(a.name), role: a.role, client: a.client,
    client_name: a.clientName ?? null, token: a.token?.name ?? null, label: describeActor(a),
    since: new Date(e.since).toISOString(), last_seen: new Date(e.lastSeen).toISOString(), last_tool: e.lastTool,
    studio: e.place, connected: e.streams > 0,
  };
}
export type PresenceView = ReturnType<typeof presenceView>;

/** "Ada Lovelace" -> "AL", "ben" -> "BE": what the Studio shows on its bar and on objects. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/[\s._@-]+/).filter(Boolean);
  if (words.length === 0) return "?";
  const letters = words.length === 1 ? [...words[0]].slice(0, 2) : [[...words[0]][0], [...words[1]][0]];
  return letters.join("").toUpperCase();
}

const keyOf = (a: Actor) => `${a.userId ?? ""}|${a.session}`;

const samePlace = (a: StudioPlace | null, b: StudioPlace | null) =>
  a === b || (!!a && !!b && a.page === b.page && a.scene === b.scene && a.selected === b.selected && a.recipe === b.recipe);

export class Presence {
  private readonly entries = new Map<string, Entry>();
  private sweeper?: ReturnType<typeof setInterval>;
  /** Called when a session ends (not when it is merely idle): its locks go with it (server/teams/teams.ts). */
  onLeave: (session: string, userId: string | null) => void = () => {};

  constructor(private readonly now: () => number = Date.now) {}

  start(): void {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref?.();
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const e of this.entries.values()) clearTimeout(e.leaving);
  }

  /** A call by `actor` (O(1)): arrives if new, otherwise its last call is noted. */
  seen(actor: Actor, tool: string | null): void {
    if (actor.client === "internal") return;
    const now = this.now();
    const key = keyOf(actor);
    const e = this.entries.get(key);
    if (e) {
      e.lastSeen = now;
      if (tool) e.lastTool = tool;
      // A call says more than a stream does (the Studio's calls are "browser"; its stream is plain HTTP).
      if (tool || e.actor.role !== actor.role) e.actor = actor;
      return;
    }
    const entry: Entry = { key, session: actor.session, actor, since: now, lastSeen: now, lastTool: tool, place: null, streams: 0 };
    this.entries.set(key, entry);
    this.announce("joined", entry);
  }

  /** A Studio tab says where it is. */
  report(actor: Actor, place: StudioPlace): PresenceView {
    this.seen(actor, null);
    const e = this.entries.get(keyOf(actor))!;
    if (!samePlace(e.place, place)) {
      e.place = place;
      this.announce("moved", e);
    }
    return presenceView(e);
  }

  /** An event stream of `actor`'s session opened; returns what to call when it closes. */
  streamOpened(actor: Actor): () => void {
    this.seen(actor, null);
    const e = this.entries.get(keyOf(actor));
    if (!e) return () => {};
    e.streams++;
    clearTimeout(e.leaving);
    e.leaving = undefined;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      e.streams--;
      if (e.streams > 0 || this.entries.get(e.key) !== e) return;
      clearTimeout(e.leaving);
      e.leaving = setTimeout(() => {
        if (e.streams === 0) this.leave(e, true);
      }, STREAM_GRACE_MS);
      e.leaving.unref?.();
    };
  }

  /** Everyone here now, earliest arrival first. */
  list(): PresenceView[] {
    return [...this.entries.values()].sort((a, b) => a.since - b.since).map(presenceView);
  }

  /** `actor`'s session ended for good (an MCP session closed): it leaves now and its locks go. */
  end(actor: Pick<Actor, "userId" | "session">): void {
    const e = this.entries.get(keyOf(actor as Actor));
    if (e) this.leave(e, true);
    else this.onLeave(actor.session, actor.userId);
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const cutoff = this.now() - IDLE_MS;
    for (const e of [...this.entries.values()]) if (e.streams === 0 && !e.leaving && e.lastSeen < cutoff) this.leave(e, false);
  }

  /** `ended`: the session is over (its stream went, it was closed), not merely idle; its locks go too. */
  private leave(e: Entry, ended: boolean): void {
    if (this.entries.get(e.key) !== e) return;
    clearTimeout(e.leaving);
    this.entries.delete(e.key);
    this.announce("left", e);
    if (ended) this.onLeave(e.session, e.actor.userId);
  }

  private announce(action: "joined" | "moved" | "left", e: Entry): void {
    kilnEvents().publish({ kind: "presence", action, presence: presenceView(e) });
  }
}
