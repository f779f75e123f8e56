// Invariant: every INVALID_PARAMS message is derived from the failing tool's own schema: it names
// the parameter, says what it takes (type, range, values, description) and what came instead.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { findTool } from "../tools";
import { describeSchema, invalidParams } from "./param-errors";

async function problem(tool: string, input: unknown) {
  const t = findTool(tool)!;
  const parsed = await t.input.safeParseAsync(input);
  if (parsed.success) throw new Error(`${tool} accepted ${JSON.stringify(input)}`);
  return invalidParams(tool, parsed.error, t.input, input);
}

describe("INVALID_PARAMS wording", () => {
  it.each([
    ["get_recipe_info", {}, "recipe", 'Missing required parameter "recipe" (string of 1-200 characters: The recipe\'s name: letters, digits and hyphens.).'],
    ["create_light", { name: "L", type: "Laser" }, "type", 'Parameter "type": expected one of Directional, Point, Spot, not "Laser".'],
    ["take_screenshot", { width: 8, height: 100 }, "width", 'Parameter "width": expected whole number from 16 to 4096, not 8.'],
    ["create_material", { name: "M", color: { r: 0, g: 0, b: 0 }, colour: 1 }, "colour", 'Unknown parameter "colour" (did you mean "color"?).'],
    ["set_camera", { fov: 500 }, "fov", 'Parameter "fov": expected number > 1 and < 179, not 500.'],
    ["create_gameobject", { name: "A", type: "Cube", position: { x: [1] } }, "position.x", 'Parameter "position.x": expected number from -1000000000 to 1000000000, not a list.'],
    ["run_recipe", { recipe: "a", variables: { v: null } }, "variables.v", 'Parameter "variables.v": expected string of at most 100000 characters or number or true or false, not null.'],
    ["create_gameobject", { name: "A" }, "type", 'Missing required parameter "type" (one of Plane, Cube, Empty, Sphere, Cylinder).'],
    ["list_branches", "nope", "", 'The parameters must be a JSON object (object of name: value), not "nope".'],
  ])("%s %j", async (tool, input, path, message) => {
    const e = await problem(tool, input);
    expect(e).toMatchObject({ code: "INVALID_PARAMS", status: 400, message });
    expect((e.details!.fields as { path: string }[])[0]).toMatchObject({ path, message, expected: expect.any(String) });
  });

  it("says how many more problems there are and lists them all", async () => {
    const e = await problem("create_gameobject", { name: "", type: "Cone", extra: 1 });
    expect(e.message).toMatch(/^Parameter "name": Object name must not be empty; .* And 2 more problems; see details\.fields\.$/);
    expect((e.details!.fields as { path: string }[]).map((f) => f.path).sort()).toEqual(["extra", "name", "type"]);
  });

  it("describes schemas in a few words", () => {
    const json = (s: z.ZodType) => z.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
    expect(describeSchema(json(z.boolean().describe("Flag.")))).toBe("true or false: Flag.");
    expect(describeSchema(json(z.array(z.string())))).toBe("list of string");
    expect(describeSchema(json(z.number().min(0)))).toBe("number >= 0");
    expect(describeSchema(undefined)).toBe("nothing (not a parameter)");
  });
});
