"use client";
/**
 * Calls `onChange` when anything a studio page shows may have changed, from GET /events
 * (useKilnEvents). Bursts are coalesced into one call: a recipe run logs many operations at once,
 * and each call reloads the page's panels.
 */
import { useEffect, useRef } from "react";
import { useKilnEvents, type EventKind } from "./use-kiln-events";

const COALESCE_MS = 50;

export function useStudioEvents(onChange: () => void, kinds?: readonly EventKind[]) {
  const callback = useRef(onChange);
  callback.current = onChange;
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useKilnEvents(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      callback.current();
    }, COALESCE_MS);
  }, kinds);
}
