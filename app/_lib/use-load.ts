"use client";
/** Loads data for a studio panel and reloads it on demand (after an action, or when an event says it changed). */
import { useCallback, useEffect, useRef, useState } from "react";
import { readableError } from "../recipes/_lib/errors";

export interface Loaded<T> { data?: T; error?: string; loading: boolean; reload(): Promise<void> }

/** With `initial` (data the server rendered the page with), the first load is skipped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], initial?: T): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>(initial === undefined ? { loading: true } : { data: initial, loading: false });
  const skip = useRef(initial !== undefined);
  const latest = useRef(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    const n = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await run();
      if (n === latest.current) setState({ data, loading: false });
    } catch (e) {
      if (n === latest.current) setState((s) => ({ data: s.data, error: readableError(e).message, loading: false }));
    }
  }, [run]);
  useEffect(() => {
    if (skip.current) return void (skip.current = false);
    void reload();
  }, [reload]);
  return { ...state, reload };
}

/** Runs a write action, reporting its failure in words instead of throwing. */
export async function attempt(action: () => Promise<unknown>, report: (message: string | undefined) => void): Promise<boolean> {
  try {
    await action();
    report(undefined);
    return true;
  } catch (e) {
    report(readableError(e).message);
    return false;
  }
}
