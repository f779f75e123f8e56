/** The three-way recipe merge: steps keyed by name, each side's changes kept, clashes listed. */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { mergeRecipeYaml } from "./merge";

const base = `name: r
description: first
steps:
  - name: a
    tool: create_gameobject
    params: { name: A, type: Cube }
  - name: b
    tool: create_gameobject
    params: { name: B, type: Cube }
  - name: c
    tool: take_screenshot
`;

describe("mergeRecipeYaml", () => {
  it("keeps both sides' changes to different steps and fields, and places their new step after its neighbour", () => {
    const mine = base.replace("name: A, type: Cube", "name: A, type: Sphere").replace("description: first", "description: mine");
    const theirs = base.replace("name: B, type: Cube", "name: B, type: Plane").replace("  - name: c\n", "  - name: b2\n    tool: create_light\n    params: { name: Sun }\n  - name: c\n");
    const { yaml, conflicts } = mergeRecipeYaml(base, mine, theirs);
    expect(conflicts).toEqual([]);
    const r = parse(yaml);
    expect(r.description).toBe("mine");
    expect(r.steps.map((s: { name: string }) => s.name)).toEqual(["a", "b", "b2", "c"]);
    expect(r.steps[0].params.type).toBe("Sphere");
    expect(r.steps[1].params.type).toBe("Plane");
  });

  it("a removal on one side stands when the other left the step alone; a clash keeps mine and says so", () => {
    const mine = base.replace("  - name: c\n    tool: take_screenshot\n", "").replace("name: B, type: Cube", "name: B, type: Sphere");
    const theirs = base.replace("name: B, type: Cube", "name: B, type: Plane");
    const { yaml, conflicts } = mergeRecipeYaml(base, mine, theirs);
    const r = parse(yaml);
    expect(r.steps.map((s: { name: string }) => s.name)).toEqual(["a", "b"]);
    expect(r.steps[1].params.type).toBe("Sphere");
    expect(conflicts).toEqual([{ path: "steps.b", message: "both changed steps.b; yours is kept" }]);
  });

  it("refuses text that is not a recipe mapping", () => {
    expect(() => mergeRecipeYaml(base, "- 1", base)).toThrow(/your recipe/);
  });
});
