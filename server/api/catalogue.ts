/**
 * The `GET /tools` catalogue, generated from the registry's zod schemas: the same schemas that
 * validate calls, so the listing and the behaviour cannot diverge.
 */
import { z } from "zod";
import { toolMethods, toolPermission, type ToolDefinition } from "../tools/define-tool";
import type { Permission } from "../teams/actor";
import { allTools } from "../tools";

export interface CatalogueEntry {
  name: string;
  group: string;
  description: string;
  methods: string[];
  /** What the caller's role must grant in team mode: read (viewers), write (editors), admin (owners). */
  permission: Permission;
  url: string;
  annotations: { readOnly: boolean; destructive: boolean; idempotent: boolean };
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

/** JSON Schema of a tool's parameters as a caller sends them. */
export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  return z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}

function entry(tool: ToolDefinition): CatalogueEntry {
  return {
    name: tool.name, group: tool.group, description: tool.description, methods: toolMethods(tool), permission: toolPermission(tool), url: `/tools/${tool.name}`,
    annotations: { readOnly: tool.access === "read", destructive: !!tool.destructive, idempotent: tool.access === "read" || !!tool.idempotent },
    input: inputJsonSchema(tool),
    output: z.toJSONSchema(tool.output, { io: "output", unrepresentable: "any" }) as Record<string, unknown>,
  };
}

let cached: CatalogueEntry[] | undefined;

/** Every tool with its group, methods, annotations and JSON Schemas. */
export function catalogue(): CatalogueEntry[] {
  cached ??= allTools().map(entry);
  return cached;
}
