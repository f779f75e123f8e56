"use client";
/**
 * Calls `onChange` when anything a studio page shows may have changed, from GET /events
 * (useKilnEvents). Bursts are coalesced into one call: a recipe run logs many operations at once,
 * and each call reloads the page's panels. `minIntervalMs` spaces the calls further, for a page
 * whose reload is costly (Home re-renders on the server).
 */
import { useEffect, useRef } from "react";
import { useKilnEvents, type EventKind } from "./use-kiln-events";

const COALESCE_MS = 50;

export function useStudioEvents(onChange: () => void, kinds?: readonly EventKind[], minIntervalMs = 0) {
  const callback = useRef(onChange);
  callback.current = onChange;
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const last = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useKilnEvents(() => {
    if (timer.current) return; // one call is due: it will show this change too
    const wait = Math.max(COALESCE_MS, last.current + minIntervalMs - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      last.current = Date.now();
      callback.current();
    }, wait);
  }, kinds);
}
