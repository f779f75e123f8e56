"use client";
/**
 * The tools the studio pages call, through the same tRPC client as the recipe builder, with each
 * result typed by its tool's zod output (type-only imports: no server code reaches the browser).
 */
import { useMemo } from "react";
import type { z } from "zod";
import type { getHistory } from "@/server/tools/history";
import type { getPipelineStatus, listTransferableAssetsTool, transferAssetTool } from "@/server/tools/pipeline";
import type { getTransactionStatus } from "@/server/tools/transactions";
import type { diffVersions, listBranches, listVersions } from "@/server/tools/version-control";
import { useTRPCClient } from "../recipes/_lib/trpc";

export type VersionList = z.output<(typeof listVersions)["output"]>;
export type Version = VersionList["versions"][number];
export type BranchList = z.output<(typeof listBranches)["output"]>;
export type Branch = BranchList["branches"][number];
export type Diff = z.output<(typeof diffVersions)["output"]>;
export type History = z.output<(typeof getHistory)["output"]>;
export type HistoryEntry = History["entries"][number];
export type TransactionStatus = z.output<(typeof getTransactionStatus)["output"]>;
export type PipelineStatus = z.output<(typeof getPipelineStatus)["output"]>;
export type Transferable = z.output<(typeof listTransferableAssetsTool)["output"]>;
export type TransferResult = z.output<(typeof transferAssetTool)["output"]>;

type Procedure = { query?(input: unknown): Promise<unknown>; mutate?(input: unknown): Promise<unknown> };

/** Read and write calls by tool name; which of the two a tool is comes from its registry entry. */
export function useStudioApi() {
  const client = useTRPCClient();
  return useMemo(() => {
    const tools = client.tools as unknown as Record<string, Procedure>;
    const read = <T>(name: string, input: unknown = {}) => tools[name].query!(input) as Promise<T>;
    const write = <T>(name: string, input: unknown = {}) => tools[name].mutate!(input) as Promise<T>;
    return {
      read, write,
      listVersions: (limit: number, offset = 0) => read<VersionList>("list_versions", { limit, offset }),
      listBranches: () => read<BranchList>("list_branches"),
      diff: (from: string, to: string) => read<Diff>("diff_versions", { from, to }),
      history: (input: { limit: number; offset?: number; tool?: string; app?: string; source?: string; person?: string; transaction_id?: string }) => read<History>("get_history", input),
      transaction: () => read<TransactionStatus>("get_transaction_status"),
      pipeline: (limit = 50) => read<PipelineStatus>("get_pipeline_status", { limit }),
      transferable: (app: string) => read<Transferable>("list_transferable_assets", { app }),
    };
  }, [client]);
}
