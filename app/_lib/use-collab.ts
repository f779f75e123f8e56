"use client";
/**
 * Presence and locks in the Studio (docs/teams.md, "Presence" and "Locks"): the tab reports where
 * it is (report_presence), keeps who else is here and which locks are held (list_presence,
 * list_locks, refreshed on `presence` and `lock` events), and takes a lock while its person edits
 * something (`useEditLock`), releasing it when they move on. Kiln enforces every lock anyway:
 * this only shows people what is going on.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { z } from "zod";
import type { listLocks, listPresence } from "@/server/tools/teams-collab";
import { useTRPCClient } from "@/app/recipes/_lib/trpc";
import { useKilnEvents } from "./use-kiln-events";
import { tabSession } from "./tab-session";

export type PresenceList = z.output<(typeof listPresence)["output"]>;
export type Person = PresenceList["people"][number];
export type LockInfo = z.output<(typeof listLocks)["output"]>["locks"][number];
export interface Place { page: string; scene?: string | null; selected?: string | null; recipe?: string | null }
export interface LockTarget { kind: "object" | "material" | "scene" | "recipe"; name: string; app?: string; scene?: string }

type Procedure = { query(input: unknown): Promise<unknown>; mutate(input: unknown): Promise<unknown> };

/** Everyone else here (not this tab), the locks held, and this tab's session. */
export function useCollab(place: Place | null): { others: Person[]; locks: LockInfo[]; session: string | null } {
  const client = useTRPCClient();
  const tools = client.tools as unknown as Record<string, Procedure>;
  const [people, setPeople] = useState<Person[]>([]);
  const [locks, setLocks] = useState<LockInfo[]>([]);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refresh = useCallback(() => {
    // Events come in bursts (50 people arriving): one refresh per burst.
    clearTimeout(pending.current);
    pending.current = setTimeout(() => {
      (tools.list_presence.query({}) as Promise<PresenceList>).then((r) => setPeople(r.people), () => undefined);
      (tools.list_locks.query({}) as Promise<{ locks: LockInfo[] }>).then((r) => setLocks(r.locks), () => undefined);
    }, 150);
  }, [tools]);
  useEffect(() => {
    refresh();
    return () => clearTimeout(pending.current);
  }, [refresh]);
  useKilnEvents(refresh, ["presence", "lock"]);

  const key = place ? JSON.stringify(place) : "";
  useEffect(() => {
    if (!place) return;
    tools.report_presence.query({ page: place.page, scene: place.scene ?? null, selected: place.selected ?? null, recipe: place.recipe ?? null }).catch(() => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, tools]);

  const session = tabSession();
  const others = useMemo(() => people.filter((p) => p.session !== session), [people, session]);
  return { others, locks, session };
}

/** The key list_locks gives a target (see server/teams/locks.ts). */
export function lockKey(t: LockTarget): string {
  if (t.kind === "recipe") return `recipe/${t.name}`;
  const enc = encodeURIComponent;
  if (t.kind === "material") return `material/${t.app}/${enc(t.name)}`;
  if (t.kind === "scene") return `scene/${t.app}/${enc(t.name)}`;
  return `object/${t.app}/${enc(t.scene ?? "")}/${enc(t.name)}`;
}

/**
 * Holds a lock on `target` while it is set (and `enabled`), releasing it when it changes or the
 * component goes. Returns the lock someone else holds on it (then Kiln refuses this tab's changes).
 */
export function useEditLock(target: LockTarget | null, enabled: boolean, locks: LockInfo[], session: string | null): LockInfo | null {
  const client = useTRPCClient();
  const tools = client.tools as unknown as Record<string, Procedure>;
  const key = target && enabled ? JSON.stringify(target) : "";
  const other = useMemo(() => {
    if (!target) return null;
    const k = lockKey(target);
    return locks.find((l) => l.key === k && l.holder.session !== session) ?? null;
  }, [target, locks, session]);
  const blocked = !!other;
  useEffect(() => {
    if (!key || blocked) return;
    const t = JSON.parse(key) as LockTarget;
    const taking = tools.lock.mutate(t).catch(() => undefined);
    // Released once taken (the lock call may still be on its way).
    return () => void taking.then(() => tools.unlock.mutate(t)).catch(() => undefined);
  }, [key, blocked, tools]);
  return other;
}
