// Invariant: one zod schema defines the recipe format: it fills in defaults (id, params,
// on_error), rejects unknown fields, and converts to the JSON Schema served to editors.
import { describe, expect, it } from "vitest";
import { recipeJsonSchema, recipeSchema, stepIdFromName } from "./schema";

describe("stepIdFromName", () => {
  it.each([
    ["Create new scene", "create_new_scene"],
    ["Add sun light", "add_sun_light"],
    ["addSunLight", "add_sun_light"],
    ["  Take screenshot (1280×720)! ", "take_screenshot_1280_720"],
    ["Créer la scène", "creer_la_scene"],
    ["3 cubes", "3_cubes"],
    ["!!!", ""],
  ])("turns %j into %j", (name, id) => {
    expect(stepIdFromName(name)).toBe(id);
  });
});

describe("recipeSchema", () => {
  it("fills in id, params, on_error, variables and transaction", () => {
    const recipe = recipeSchema.parse({ name: "a-1", description: "d", steps: [{ name: "Set camera", tool: "set_camera", params: null }] });
    expect(recipe).toEqual({
      name: "a-1",
      description: "d",
      variables: {},
      transaction: false,
      steps: [{ name: "Set camera", id: "set_camera", tool: "set_camera", params: {}, on_error: "stop" }],
    });
  });

  it("keeps an explicit id", () => {
    const recipe = recipeSchema.parse({ name: "a", description: "d", steps: [{ name: "Set camera", id: "cam", tool: "set_camera" }] });
    expect(recipe.steps[0].id).toBe("cam");
  });

  it.each([
    ["an unknown top-level field", { extra: 1 }],
    ["an empty step list", { steps: [] }],
    ["a name with a slash", { name: "../etc" }],
    ["a numeric version", { version: 1 }],
    ["an id with capitals", { steps: [{ name: "A", id: "Bad", tool: "t" }] }],
    ["a reserved id", { steps: [{ name: "A", id: "constructor", tool: "t" }] }],
    ["a nested variable value", { variables: { a: { b: 1 } } }],
    ["an unknown step field", { steps: [{ name: "A", tool: "t", when: "x" }] }],
  ])("rejects %s", (_case, patch) => {
    const base = { name: "a", description: "d", steps: [{ name: "A", tool: "t" }] };
    expect(recipeSchema.safeParse({ ...base, ...patch }).success).toBe(false);
  });
});

describe("recipeJsonSchema", () => {
  it("describes the file as authored: only name, description and steps are required", () => {
    const schema = recipeJsonSchema() as { required: string[]; additionalProperties: boolean; properties: Record<string, unknown>; title: string };
    expect(schema.title).toBe("Kiln recipe");
    expect(schema.required.sort()).toEqual(["description", "name", "steps"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(["name", "description", "version", "author", "variables", "transaction", "steps"]);
    expect(JSON.stringify(schema)).toContain('"enum":["stop","continue"]');
  });
});
