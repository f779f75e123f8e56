/**
 * The event bus behind `GET /events`: one process-wide publisher that the workspace (operations),
 * version control (versions, branches), transactions, recipe runs and transfers publish to, and
 * every open event stream subscribes to. Kept on globalThis, as the runtime is, because Next.js may
 * load this module once per route bundle and a second bus would never hear the first one's events.
 *
 * Each event gets an increasing id; the last RING_SIZE are kept so a reconnecting stream can resume
 * from `Last-Event-ID` without a gap (older ids get a `reset` event: reload what you show).
 */
import type { KilnEvent, KilnEventBody } from "./types";

const RING_SIZE = 1000;

type Listener = (event: KilnEvent) => void;

/** Publishes Kiln's events and keeps the most recent ones for resuming streams. */
export class EventBus {
  private listeners = new Set<Listener>();
  private ring: KilnEvent[] = [];
  private nextId = 1;

  /** Sends an event to every subscriber now. A failing subscriber never reaches the publisher. */
  publish(body: KilnEventBody): KilnEvent {
    const event = { id: this.nextId++, at: new Date().toISOString(), ...body } as KilnEvent;
    this.ring.push(event);
    if (this.ring.length > RING_SIZE) this.ring.splice(0, this.ring.length - RING_SIZE);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A stream that fails to write is closed by its own handler; others still get the event.
      }
    }
    return event;
  }

  /** Calls `listener` for each event from now on; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The kept events after `lastId`, or null when some of them were already dropped from the ring
   * (or `lastId` is from another process lifetime: ids restart at 1).
   */
  since(lastId: number): KilnEvent[] | null {
    if (lastId >= this.nextId) return null;
    const first = this.ring[0]?.id ?? this.nextId;
    if (lastId < first - 1) return null;
    return this.ring.filter((e) => e.id > lastId);
  }

  /** How many streams listen now. */
  get size(): number {
    return this.listeners.size;
  }
}

const KEY = Symbol.for("kiln.events");
type Holder = { [KEY]?: EventBus };

/** The process-wide bus. */
export function kilnEvents(): EventBus {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new EventBus());
}
