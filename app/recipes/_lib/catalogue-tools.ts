/**
 * The catalogue as the builder pages hand it to the browser: name, group, description and input
 * JSON Schema of every tool, straight from the registry (server side only).
 */
import { catalogue } from "@/server/api/catalogue";
import type { ToolInfo } from "./tools";

/** Every tool, for the tool picker and the param forms. */
export function builderTools(): ToolInfo[] {
  return catalogue().map(({ name, group, description, input }) => ({ name, group, description, input }));
}
