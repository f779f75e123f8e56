"use client";
/** A read tool's answer that reloads on demand, and a way to call write tools with the answer's error shown. */
import { useCallback, useEffect, useState } from "react";
import { useStudioApi } from "../../_lib/studio-api";

export interface ToolError { code: string; message: string }

/** The error body a tRPC call failed with (Kiln's envelope error, kept by the error formatter). */
export function toolError(e: unknown): ToolError {
  const kiln = (e as { data?: { kiln?: ToolError }; shape?: { data?: { kiln?: ToolError } } }).shape?.data?.kiln ?? (e as { data?: { kiln?: ToolError } }).data?.kiln;
  return kiln ?? { code: "ERROR", message: (e as Error).message };
}

export function useRead<T>(tool: string, input: unknown) {
  const api = useStudioApi();
  const key = JSON.stringify(input);
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ToolError | null>(null);
  const reload = useCallback(() => {
    api.read<T>(tool, JSON.parse(key)).then((d) => { setData(d); setError(null); }, (e) => setError(toolError(e)));
  }, [api, tool, key]);
  useEffect(reload, [reload]);
  return { data, error, reload };
}

export function useWrite() {
  const api = useStudioApi();
  const [error, setError] = useState<ToolError | null>(null);
  const call = useCallback(async <T,>(tool: string, input: unknown): Promise<T | null> => {
    setError(null);
    try {
      return await api.write<T>(tool, input);
    } catch (e) {
      setError(toolError(e));
      return null;
    }
  }, [api]);
  return { call, error, setError };
}
