/**
 * KILN_TOOLS selects MCP tools by group or name; anything else is a configuration error, so a
 * typo never hides tools silently.
 */
import { describe, expect, it } from "vitest";
import { allTools } from "../tools";
import { mcpToolList, selectTools } from "./mcp";

const names = (spec?: string) => selectTools(spec).map((t) => t.name);

describe("selectTools (KILN_TOOLS)", () => {
  it("exposes every tool when unset, empty or 'all'", () => {
    for (const spec of [undefined, "", " , ", "all", "editor,all"]) expect(names(spec)).toEqual(allTools().map((t) => t.name));
  });

  it("keeps the tools of the named groups and the named tools, in registry order", () => {
    const expected = allTools().filter((t) => t.group === "version_control" || t.name === "get_scene").map((t) => t.name);
    expect(names(" version_control , get_scene ")).toEqual(expected);
  });

  it("refuses an entry that is neither a group nor a tool, naming it", () => {
    expect(() => selectTools("editor,editr")).toThrow(/unknown groups or tools: editr\. Groups: editor/);
  });
});

describe("mcpToolList", () => {
  it("gives every tool an object input schema without $schema, and all three hints", () => {
    for (const tool of mcpToolList(allTools())) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.inputSchema).not.toHaveProperty("$schema");
      expect(Object.keys(tool.annotations ?? {}).sort()).toEqual(["destructiveHint", "idempotentHint", "readOnlyHint", "title"]);
    }
  });
});
