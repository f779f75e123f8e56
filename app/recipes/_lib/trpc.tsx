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
import { tabSession } from "@/app/_lib/tab-session";

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

/** Headers of every tRPC call: the token (if any) and this tab's session (presence, locks). */
function callHeaders(): Record<string, string> {
  const session = tabSession();
  return { ...authHeaders(), ...(session ? { "x-kiln-session": session } : {}) };
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
      links: [httpBatchLink({ url: "/api/trpc", methodOverride: "POST", headers: callHeaders })],
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
