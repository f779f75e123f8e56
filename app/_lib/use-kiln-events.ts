"use client";
/**
 * `useKilnEvents(onEvent, kinds?)`: a page's subscription to `GET /events` (docs/api.md, "Events").
 * EventSource resumes by itself with Last-Event-ID after a dropped connection; when the server
 * refused the stream outright (EventSource then gives up), this reconnects after a pause. A
 * `reset` event means events were missed: reload whatever the page shows.
 * @example
 * const status = useKilnEvents((e) => { if (e.kind === "operation") refetch(); }, ["operation"]);
 */
import { useEffect, useRef, useState } from "react";
import type { EventKind, KilnEvent } from "@/server/events/types";
import { tabSession } from "./tab-session";

export type { EventKind, KilnEvent } from "@/server/events/types";

/** What the stream may send: Kiln's events, and `reset` when some were lost. */
export type StreamEvent = KilnEvent | { kind: "reset"; at: string };

export type StreamStatus = "connecting" | "open" | "closed";

const RETRY_MS = 2000;

/** Calls `onEvent` for each event of `kinds` (all when absent); returns the stream's status. */
export function useKilnEvents(onEvent: (event: StreamEvent) => void, kinds?: readonly EventKind[]): StreamStatus {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const key = kinds ? [...kinds].sort().join(",") : "";

  useEffect(() => {
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let lastId = "";
    const connect = () => {
      // A fresh EventSource forgets the last id; pass it on so nothing is missed in between.
      const query = new URLSearchParams();
      if (key) query.set("kinds", key);
      if (lastId) query.set("last_event_id", lastId);
      // The tab's stream is its presence: when it goes, the tab has left and its locks go.
      const session = tabSession();
      if (session) query.set("session", session);
      source = new EventSource(query.size ? `/events?${query}` : "/events");
      source.onopen = () => setStatus("open");
      source.onmessage = (m) => {
        if (m.lastEventId) lastId = m.lastEventId;
        try {
          handler.current(JSON.parse(m.data) as StreamEvent);
        } catch (error) {
          console.error("kiln events: a handler failed", error);
        }
      };
      source.onerror = () => {
        if (source?.readyState === EventSource.CLOSED && !stopped) {
          setStatus("closed");
          retry = setTimeout(connect, RETRY_MS);
        } else setStatus("connecting");
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, [key]);

  return status;
}
