"use client";
/**
 * What every part of the builder shares without prop drilling. Split in two so that canvas nodes
 * (hundreds of them) never re-render because of it: `BuilderActions` holds only stable
 * functions, and the tool catalogue never changes while the page is open.
 */
import { createContext, useContext } from "react";
import type { ToolInfo } from "../_lib/tools";

/** Actions nodes, edges and panels can trigger. All functions are stable for the page's life. */
export interface BuilderActions {
  /** Makes these nodes the selection. */
  select(ids: readonly string[]): void;
  /** Opens the tool picker to add a step at `index` (0 = first). */
  openInsert(index: number): void;
  /** Moves keyboard focus to the canvas (after a click, so shortcuts act on the canvas). */
  focusCanvas(): void;
}

/** Provides BuilderActions to nodes, edges and panels. */
export const ActionsContext = createContext<BuilderActions | null>(null);

/** The builder's actions; throws outside the builder. */
export function useActions(): BuilderActions {
  const actions = useContext(ActionsContext);
  if (!actions) throw new Error("useActions must be used inside the builder");
  return actions;
}

/** Every tool by name (the catalogue as the page received it). */
export const ToolsContext = createContext<ReadonlyMap<string, ToolInfo>>(new Map());

/** The tool catalogue by name. */
export function useTools(): ReadonlyMap<string, ToolInfo> {
  return useContext(ToolsContext);
}
