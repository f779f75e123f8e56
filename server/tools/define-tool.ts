/**
 * A tool is defined once: name, group, access, schemas and handler. Every surface (HTTP routes,
 * tRPC, MCP, the `GET /tools` catalogue, recipe validation, the builder's forms) is derived from
 * the registry of these objects (see ./index.ts).
 */
import type { z } from "zod";
import type { Kiln } from "../runtime";
import type { Permission } from "../teams/actor";

/** The groups the catalogue, MCP filtering and the builder's tool picker use. */
export const TOOL_GROUPS = ["editor", "version_control", "transactions", "pipeline", "recipes", "teams"] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/**
 * `read` tools only look (GET with a query string, or POST); `write` tools change state (POST;
 * DELETE too where `allowDelete`). Annotations feed MCP's hints.
 */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  group: ToolGroup;
  description: string;
  access: "read" | "write";
  allowDelete?: boolean;
  /**
   * What the caller's role must grant (docs/teams.md): by default `read` for read tools and
   * `write` for the others; `admin` for what only an owner may do.
   */
  permission?: Permission;
  /** Deletes or overwrites something (MCP destructiveHint). */
  destructive?: boolean;
  /** Calling it twice with the same input has no further effect (MCP idempotentHint). */
  idempotent?: boolean;
  input: I;
  output: O;
  handler: (input: z.output<I>, ctx: ToolContext) => Promise<z.input<O>>;
}

export interface ToolContext {
  kiln: Kiln;
}

/** Identity function that keeps a tool's input and output types tied to its handler. */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return tool;
}

/** HTTP methods a tool answers. */
export function toolMethods(tool: ToolDefinition): string[] {
  if (tool.access === "read") return ["GET", "POST"];
  return tool.allowDelete ? ["POST", "DELETE"] : ["POST"];
}

/** The permission a tool needs: its own declaration, else what its access implies. */
export function toolPermission(tool: ToolDefinition): Permission {
  return tool.permission ?? (tool.access === "read" ? "read" : "write");
}
