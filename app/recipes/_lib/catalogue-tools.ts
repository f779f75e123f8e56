/**
 * The catalogue as the builder pages hand it to the browser: name, group, description and input
 * JSON Schema of every tool, straight from the registry (server side only).
 */
import { catalogue } from "@/server/api/catalogue";
import type { ToolInfo } from "./tools";

/** Every tool, for the tool picker and the param forms. */
export function builderTools(): ToolInfo[] {
  // Team administration is not a recipe step (server/tools/recipe-catalogue.ts).
  return catalogue().filter((t) => t.group !== "teams").map(({ name, group, description, input }) => ({ name, group, description, input }));
}
