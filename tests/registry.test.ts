// Invariant: the registry is the single source of truth and every tool in it is well-formed:
// unique snake_case names, a known group, strict input schemas that convert to JSON Schema, and
// methods derived from its access.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { catalogue } from "../server/api/catalogue";
import { TOOL_GROUPS, toolMethods } from "../server/tools/define-tool";
import { allTools } from "../server/tools";

describe("the tool registry", () => {
  const tools = allTools();

  it("has unique snake_case names", () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it.each(tools.map((t) => [t.name, t]))("%s has a group, a description and strict schemas", (_n, tool) => {
    expect(TOOL_GROUPS).toContain(tool.group);
    expect(tool.description.length).toBeGreaterThan(10);
    const input = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as { type: string; additionalProperties: boolean };
    expect(input.type).toBe("object");
    expect(input.additionalProperties).toBe(false);
    expect(() => z.toJSONSchema(tool.output, { io: "output", unrepresentable: "any" })).not.toThrow();
    expect(tool.input.safeParse({ surely_not_a_parameter: 1 }).success).toBe(false);
  });

  it("derives methods from access: reads answer GET and POST, writes POST", () => {
    for (const tool of tools) {
      const methods = toolMethods(tool);
      if (tool.access === "read") expect(methods).toEqual(["GET", "POST"]);
      else expect(methods[0]).toBe("POST");
    }
    expect(toolMethods(tools.find((t) => t.name === "delete_version")!)).toEqual(["POST", "DELETE"]);
  });

  it("the catalogue lists exactly the registry", () => {
    expect(catalogue().map((c) => c.name)).toEqual(tools.map((t) => t.name));
  });
});
