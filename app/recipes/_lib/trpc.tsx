"use client";
/**
 * The browser's tRPC client: the same procedures as /tools (server/api/trpc.ts), at /api/trpc.
 * Queries go as POST (methodOverride) because validate_recipe carries whole recipes, which do not
 * fit in a URL. When Kiln runs with KILN_TOKEN, the token the user enters is kept for this tab
 * (sessionStorage) and sent as a bearer header.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/api/trpc";

/** The tRPC provider and hooks, typed by the app router. */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

const TOKEN_KEY = "kiln-token";

/** The access token entered in this tab, if any. */
export function getToken(): string | null {
  return typeof window === "undefined" ? null : window.sessionStorage.getItem(TOKEN_KEY);
}

/** Remembers (or with "" forgets) the access token for this tab. */
export function setToken(token: string): void {
  if (token) window.sessionStorage.setItem(TOKEN_KEY, token);
  else window.sessionStorage.removeItem(TOKEN_KEY);
}

const SESSION_KEY = "kiln-session";

/**
 * This tab's client session (sent as `X-Kiln-Session`): in personal mode undo and redo act on the
 * steps made in this tab, and history names it (server/api/caller.ts). Kept for the tab's life
 * (getRandomValues, not randomUUID: the latter needs a secure context, which a LAN address is not).
 */
export function tabSession(): string {
  if (typeof window === "undefined") return "browser";
  let id = window.sessionStorage.getItem(SESSION_KEY);
  if (!id) window.sessionStorage.setItem(SESSION_KEY, (id = `tab-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("")}`));
  return id;
}

/** Headers for requests outside tRPC (screenshot images). */
export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

function makeQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: false } } });
}

/** React Query + tRPC for the recipe pages. */
export function KilnProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", methodOverride: "POST", headers: () => ({ ...authHeaders(), "x-kiln-session": tabSession() }) })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
