"use client";
/**
 * Re-renders the server page it sits in when GET /events says something it shows may have changed
 * (router.refresh keeps client state and scroll). For pages drawn on the server, such as Home;
 * client pages reload their own data instead. At most one refresh a second: each re-renders the
 * whole page on the server, and a recipe run or a live session sends many events a second.
 */
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { useKilnEvents, type EventKind } from "@/app/_lib/use-kiln-events";

const MIN_INTERVAL_MS = 1000;

export function LiveRefresh({ kinds }: { kinds?: readonly EventKind[] }) {
  const router = useRouter();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const last = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  useKilnEvents(() => {
    if (timer.current) return; // one is already due: it will show this change too
    const wait = Math.max(0, last.current + MIN_INTERVAL_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      last.current = Date.now();
      router.refresh();
    }, Math.max(wait, 50));
  }, kinds);
  return null;
}
