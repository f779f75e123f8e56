// Invariant: validateRecipe reports ALL problems of a recipe in one answer (structure, tools,
// params, variables, conditions, step references), each at the right path, line and column,
// and never reports a false error for a value that is only known at run time.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fakeCatalogue } from "../../tests/fixtures/recipes/fake-catalogue";
import { validateRecipe } from "./validate";

const fixture = (name: string) => readFileSync(new URL(`../../tests/fixtures/recipes/${name}.yaml`, import.meta.url), "utf8");
const validate = (text: string, variables?: Record<string, unknown>) => validateRecipe(text, fakeCatalogue, { variables });
/** A recipe with the given step lines (already indented by four spaces after "- "). */
const recipe = (steps: string, variables = "") =>
  `name: t\ndescription: test\n${variables ? `variables:\n${variables}` : ""}steps:\n${steps}`;

describe("validateRecipe", () => {
  it("accepts the spec's basic scene recipe", () => {
    const result = validate(fixture("basic-scene-setup"));
    expect(result).toMatchObject({ valid: true, errors: [], warnings: [] });
    expect(result.recipe?.steps.map((s) => s.id)).toEqual(["create_new_scene", "create_ground", "add_sun_light", "set_camera", "take_screenshot"]);
  });

  it("reports a wrong tool, a wrong param type, an undefined variable and a condition syntax error together", () => {
    const result = validate(fixture("many-problems"));
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      { path: "steps[0].tool", line: 7, column: 11, message: 'unknown tool "create_scen" (did you mean "create_scene"?)' },
      { path: "steps[1].params.position.x", line: 15, column: 22, message: "Invalid input: expected number, received string" },
      { path: "steps[2].params.name", line: 19, column: 13, message: 'undefined variable "label" in "{{ label }}"' },
      { path: "steps[3].condition", line: 26, column: 29, message: "condition syntax error: Unexpected token: EOF" },
    ]);
    expect(result.warnings).toEqual([{ path: "variables.size", line: 4, column: 3, message: 'variable "size" is never used' }]);
  });

  it("accepts step-result references whose types are unknown until run time", () => {
    expect(validate(fixture("step-results"))).toMatchObject({ valid: true, errors: [] });
  });

  it("checks placeholders typed by their variables' defaults, and by run-time overrides", () => {
    const text = recipe("  - name: Shot\n    tool: take_screenshot\n    params: { width: \"{{ w }}\", height: 720 }\n", "  w: 8\n");
    expect(validate(text).errors).toEqual([
      { path: "steps[0].params.width", line: 8, column: 22, message: "Too small: expected number to be >=16 (the value comes from {{ w }}, which is 8)" },
    ]);
    expect(validate(text, { w: 640 }).valid).toBe(true);
  });

  it("says which placeholder produced a value of the wrong type", () => {
    const text = recipe('  - name: Scene\n    tool: create_scene\n    params: { name: "{{ count }}" }\n', "  count: 3\n");
    expect(validate(text).errors[0].message).toBe(
      "Invalid input: expected string, received number (the value comes from {{ count }}, which is 3)",
    );
  });

  it("treats a variable supplied only at run time as defined", () => {
    const text = recipe('  - name: Scene\n    tool: create_scene\n    params: { name: "{{ title }}" }\n');
    expect(validate(text).errors).toEqual([
      { path: "steps[0].params.name", line: 6, column: 21, message: 'undefined variable "title" in "{{ title }}"' },
    ]);
    expect(validate(text, { title: "Night" }).valid).toBe(true);
  });

  it.each([
    ["a later step", "steps.second.status", /refers to a later step \(steps\[1\]\)/],
    ["the step itself", "steps.first.status", /refers to this step itself/],
    ["an unknown step", "steps.frist.status", /no step with id "frist" \(did you mean "first"\?\)/],
  ])("rejects a condition that reads %s", (_case, expression, message) => {
    const text = recipe(
      `  - name: First\n    tool: set_camera\n    condition: '${expression} == "succeeded"'\n  - name: Second\n    tool: set_camera\n`,
    );
    const result = validate(text);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ path: "steps[0].condition", line: 6, message: expect.stringMatching(message) });
  });

  it("rejects a placeholder that reads a later step's result", () => {
    const text = recipe(
      '  - name: Paint\n    tool: set_material\n    params: { target: "{{ steps.cube.result.name }}", material: m }\n  - name: Cube\n    tool: create_gameobject\n    params: { name: c, type: Cube }\n',
    );
    expect(validate(text).errors).toEqual([
      { path: "steps[0].params.target", line: 6, column: 23, message: "{{ steps.cube.result.name }} refers to a later step (steps[1]); only earlier steps can be read" },
    ]);
  });

  it("reports an undefined variable in a condition at its column", () => {
    const text = recipe("  - name: Cam\n    tool: set_camera\n    condition: vars.size > 1 && vars.sise > 2\n", "  size: 3\n");
    expect(validate(text).errors).toEqual([
      { path: "steps[0].condition", line: 8, column: 33, message: 'undefined variable "sise" in condition (did you mean "size"?)' },
    ]);
  });

  it("reports structure errors and step problems in the same answer", () => {
    const text = "name: bad name\nsteps:\n  - name: A\n    tool: set_camera\n    on_eror: stop\n  - name: B\n    tool: nope\n";
    const result = validate(text);
    expect(result.errors).toEqual([
      // A missing field points at the mapping that lacks it (here the document start).
      { path: "description", line: 1, column: 1, message: "description is required" },
      { path: "name", line: 1, column: 7, message: "name must be letters, digits and hyphens only" },
      { path: "steps[0].on_eror", line: 5, column: 5, message: 'unknown field "on_eror" (did you mean "on_error"?)' },
      { path: "steps[1].tool", line: 7, column: 11, message: 'unknown tool "nope"' },
    ]);
    expect(result.recipe).toBeUndefined();
  });

  it.each([
    ["duplicate ids", "  - name: A\n    tool: set_camera\n  - name: a\n    tool: set_camera\n", /duplicate step id "a" \(steps\[0\] has it too\)/],
    ["an unquoted version", "  - name: A\n    tool: set_camera\nversion: 1.0\n", /version must be a quoted string/],
    ["an invalid on_error", "  - name: A\n    tool: set_camera\n    on_error: ignore\n", /on_error must be stop or continue/],
    ["a name with no id", "  - name: '!!!'\n    tool: set_camera\n", /gives no usable step id/],
    ["an unknown param", "  - name: A\n    tool: set_camera\n    params: { fov: 60 }\n", /unknown parameter "fov"/],
    ["a missing param", "  - name: A\n    tool: take_screenshot\n    params: { width: 100 }\n", /required parameter "height" is missing/],
    ["a missing param that takes a list of values", "  - name: A\n    tool: create_gameobject\n    params: { name: Box }\n", /required parameter "type" is missing/],
    ["a value not in the list", "  - name: A\n    tool: create_gameobject\n    params: { name: Box, type: Cone }\n", /expected one of Plane, Cube, Empty, Sphere, Cylinder$/],
    ["a step that is not a mapping", "  - just text\n", /a step must be a mapping with name and tool/],
    ["a variable name with a hyphen", "  - name: A\n    tool: set_camera\nvariables: { a-b: 1 }\n", /invalid name "a-b": a variable name is letters/],
    ["a reserved variable", "  - name: A\n    tool: set_camera\nvariables: { steps: 1 }\n", /reserved/],
    ["a malformed placeholder", "  - name: A\n    tool: create_scene\n    params: { name: '{{ a b }}' }\n", /invalid placeholder/],
    ["a non-boolean condition", "  - name: A\n    tool: set_camera\n    condition: '1 + 1'\n", /must give true or false/],
  ])("reports %s", (_case, steps, message) => {
    const result = validate(recipe(steps));
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.message)).toContainEqual(expect.stringMatching(message));
  });

  it("rejects transaction steps inside a recipe that runs in a transaction", () => {
    const text = `${recipe("  - name: Begin\n    tool: begin_transaction\n    params: { name: x }\n")}transaction: true\n`;
    expect(validate(text).errors[0].message).toMatch(/cannot be a step of a recipe with transaction: true/);
  });

  it("warns about run-time variables the recipe does not use", () => {
    const result = validate(recipe("  - name: A\n    tool: set_camera\n"), { extra: 1 });
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([{ path: "variables.extra", line: 1, column: 1, message: 'run-time variable "extra" is not used by this recipe' }]);
  });

  it.each(["__proto__", "constructor", "steps"])("rejects the run-time variable name %s", (name) => {
    const overrides = JSON.parse(`{"${name}": 1}`) as Record<string, unknown>;
    const result = validate(recipe("  - name: A\n    tool: set_camera\n"), overrides);
    expect(result.errors[0].message).toBe(`run-time variable "${name}" is not a valid variable name`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects run-time values that are not strings, numbers or booleans", () => {
    const result = validate(recipe("  - name: A\n    tool: create_scene\n    params: { name: '{{ n }}' }\n", "  n: a\n"), { n: { nested: true } });
    expect(result.errors[0].message).toBe('run-time value of "n" must be a string, a number or a boolean');
  });

  it("turns a tool schema that cannot be checked synchronously into a warning, not a throw", () => {
    const asyncTool = z.strictObject({ name: z.string() }).refine(async () => true);
    const catalogue = { ...fakeCatalogue, getTool: (name: string) => ({ name, group: "editor", input: asyncTool }) };
    const result = validateRecipe(recipe("  - name: A\n    tool: anything\n    params: { name: a }\n"), catalogue);
    expect(result.valid).toBe(true);
    expect(result.warnings[0].message).toMatch(/the params of anything could not be checked/);
  });

  it("returns YAML errors alone, with positions", () => {
    expect(validate("name: [unclosed\n")).toMatchObject({ valid: false, errors: [{ line: expect.any(Number), column: expect.any(Number) }] });
  });
});
