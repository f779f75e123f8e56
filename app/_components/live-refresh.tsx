"use client";
/**
 * Re-renders the server page it sits in when GET /events says something it shows may have changed
 * (router.refresh keeps client state and scroll). For pages drawn on the server, such as Home;
 * client pages reload their own data instead. At most one refresh a second: each re-renders the
 * whole page on the server, and a recipe run or a live session sends many events a second.
 */
import { useRouter } from "next/navigation";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import type { EventKind } from "@/app/_lib/use-kiln-events";

const MIN_INTERVAL_MS = 1000;

export function LiveRefresh({ kinds }: { kinds?: readonly EventKind[] }) {
  const router = useRouter();
  useStudioEvents(() => router.refresh(), kinds, MIN_INTERVAL_MS);
  return null;
}
