"use client";
/**
 * Calls `onChange` when anything Kiln holds changes (operations, versions, branches, transactions,
 * runs, transfers), from the server-sent events at GET /events. Bursts are coalesced into one call
 * (a recipe run logs many operations at once). Without the stream it polls every few seconds.
 */
import { useEffect, useRef } from "react";

const COALESCE_MS = 60;
const POLL_MS = 3000;

export function useStudioEvents(onChange: () => void) {
  const callback = useRef(onChange);
  callback.current = onChange;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let poll: ReturnType<typeof setInterval> | undefined;
    const fire = () => {
      if (timer) return;
      timer = setTimeout(() => { timer = undefined; callback.current(); }, COALESCE_MS);
    };
    const source = new EventSource("/events");
    source.onmessage = fire;
    for (const kind of ["operation", "version", "branch", "transaction", "run", "transfer"]) source.addEventListener(kind, fire);
    source.onerror = () => {
      // Closed for good (no stream here): fall back to polling. A transient drop reconnects by itself.
      if (source.readyState === EventSource.CLOSED && !poll) poll = setInterval(() => callback.current(), POLL_MS);
    };
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
    };
  }, []);
}
