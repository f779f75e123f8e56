/**
 * Pins YAML → draft → YAML: an unchanged recipe comes back byte for byte, an edit changes only
 * what it touches (comments, quoting and order elsewhere kept), a recipe built from nothing is
 * written in the house style of recipes/*.yaml, and meaning and field order survive every path.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { draftFromYaml, emptyDraft, type RecipeDraft } from "./draft";
import { addStep, moveStepTo, removeSteps, setField, setParam, setStepField, setVariables } from "./edits";
import { draftToYaml, stepsToYaml } from "./serialize";

const ROOT = path.resolve(__dirname, "../../..");
const recipeFiles = [
  ...readdirSync(path.join(ROOT, "recipes")).map((f) => path.join(ROOT, "recipes", f)),
  ...readdirSync(path.join(ROOT, "tests/fixtures/recipes")).filter((f) => f.endsWith(".yaml")).map((f) => path.join(ROOT, "tests/fixtures/recipes", f)),
].filter((f) => f.endsWith(".yaml"));

function load(text: string): RecipeDraft {
  const { draft, problem } = draftFromYaml(text);
  if (!draft) throw new Error(problem?.message);
  return draft;
}

/** Key order at every level, for "field order kept". */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => [k, shape(v)]);
  return value;
}

const basic = readFileSync(path.join(ROOT, "recipes/basic-scene-setup.yaml"), "utf8");

describe("draftToYaml", () => {
  it.each(recipeFiles)("gives back %s byte for byte when nothing changed", (file) => {
    const text = readFileSync(file, "utf8");
    expect(draftToYaml(load(text))).toBe(text);
  });

  it.each(recipeFiles)("keeps the meaning and key order of %s through an edit and back", (file) => {
    const text = readFileSync(file, "utf8");
    const draft = load(text);
    // Touch a field and undo it by value: every node is rewritten through the patch path.
    const touched = setField(setField(draft, "description", "x"), "description", draft.fields.description);
    const out = draftToYaml({ ...touched, steps: touched.steps.map((s) => ({ ...s, value: structuredClone(s.value) })) });
    expect(shape(parse(out))).toEqual(shape(parse(text)));
  });

  it("changes only the edited line and keeps comments", () => {
    const draft = load(basic);
    const ground = draft.steps[1].uid;
    const out = draftToYaml(setParam(draft, ground, ["name"], "Floor"));
    const before = basic.split("\n");
    const after = out.split("\n");
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [[before[i], line]]));
    expect(changed).toEqual([['      name: "Ground"', '      name: "Floor"']]);
  });

  it("writes a recipe built from nothing exactly like the sample file (comments aside)", () => {
    let d = setField(emptyDraft(), "name", "basic-scene-setup");
    d = setField(d, "description", "Create a basic scene with ground, light and camera, then take a screenshot");
    d = setField(d, "author", "Kiln");
    d = setField(d, "version", "1.0"); // set after author: still written before it
    d = setVariables(d, [["scene_name", "MyScene"], ["ground_size", 100], ["light_intensity", 1.2]]);
    const vector = ["x", "y", "z"];
    const steps: [string, string, [string[], unknown][]][] = [
      ["Create new scene", "create_scene", [[["if_exists"], "reuse"], [["name"], "{{ scene_name }}"]]],
      ["Create ground", "create_gameobject", [
        [["scale", "x"], "{{ ground_size }}"], [["scale", "y"], 1], [["scale", "z"], "{{ ground_size }}"],
        [["name"], "Ground"], [["type"], "Plane"],
        [["position", "x"], 0], [["position", "y"], 0], [["position", "z"], 0], [["if_exists"], "replace"],
      ]],
      ["Add sun light", "create_light", [[["if_exists"], "replace"], [["name"], "Sun"], [["type"], "Directional"], [["rotation", "x"], 50], [["rotation", "y"], -30], [["rotation", "z"], 0], [["intensity"], "{{ light_intensity }}"]]],
      ["Set camera", "set_camera", [[["position", "x"], 0], [["position", "y"], 10], [["position", "z"], -20], [["rotation", "x"], 20], [["rotation", "y"], 0], [["rotation", "z"], 0]]],
      ["Take screenshot", "take_screenshot", [[["height"], 720], [["width"], 1280]]],
    ];
    const order: Record<string, string[]> = {
      create_scene: ["name", "if_exists", "app"],
      create_gameobject: ["name", "type", "position", "rotation", "scale", "parent", "if_exists"],
      create_light: ["name", "type", "intensity", "color", "range", "position", "rotation", "parent", "if_exists"],
      set_camera: ["position", "rotation", "fov"],
      take_screenshot: ["width", "height"],
    };
    for (const [name, tool, params] of steps) {
      const added = addStep(d, d.steps.length, tool);
      d = setStepField(added.draft, added.uid, "name", name);
      for (const [p, value] of params) d = setParam(d, added.uid, p, value, [order[tool], vector]);
    }
    expect(draftToYaml(d)).toBe(basic.replace(/^(#.*\n)+/, ""));
  });

  it("moves a step with its comment and keeps the blank-line style", () => {
    const text = readFileSync(path.join(ROOT, "recipes/colored-materials.yaml"), "utf8");
    const draft = load(text);
    const paint = draft.steps[4].uid;
    const out = draftToYaml(moveStepTo(draft, paint, 0));
    expect(out).toContain("steps:\n  # Step results feed later steps");
    expect(parse(out).steps[0].name).toBe("Paint cube");
    expect(out).not.toMatch(/steps:\n\n/);
    expect(out).toMatch(/\n\n  - name: Create primary material/);
  });

  it("removes the steps key's items but keeps the rest when every step is deleted", () => {
    const draft = load(basic);
    const out = draftToYaml(removeSteps(draft, draft.steps.map((s) => s.uid)));
    expect(parse(out)).toMatchObject({ name: "basic-scene-setup", steps: [] });
  });

  it("writes copied steps as a YAML list that parses back to the same values", () => {
    const draft = load(basic);
    const text = stepsToYaml(draft.steps.slice(1, 3).map((s) => s.value));
    expect(parse(text)).toEqual(draft.steps.slice(1, 3).map((s) => s.value));
  });
});
