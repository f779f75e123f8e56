"use client";
/**
 * Re-renders the server page it sits in when GET /events says something it shows may have changed
 * (router.refresh keeps client state and scroll; bursts are coalesced by useStudioEvents). For
 * pages drawn on the server, such as Home; client pages reload their own data instead.
 */
import { useRouter } from "next/navigation";
import { useStudioEvents } from "@/app/_lib/use-studio-events";
import type { EventKind } from "@/app/_lib/use-kiln-events";

export function LiveRefresh({ kinds }: { kinds?: readonly EventKind[] }) {
  const router = useRouter();
  useStudioEvents(() => router.refresh(), kinds);
  return null;
}
