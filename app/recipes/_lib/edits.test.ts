/**
 * Pins the builder's edits: new keys land in canonical order (recipe fields, step fields, the
 * tool's param order), nothing else is reordered, names and ids stay unique, and moves, copies
 * and deletes touch only the steps they name.
 */
import { describe, expect, it } from "vitest";
import { STEPS_SLOT, emptyDraft, type RecipeDraft } from "./draft";
import {
  addStep, changeTool, duplicateSteps, insertSteps, moveStepTo, moveSteps, removeSteps, setField, setParam, setStepField, uniqueStepName, withKey,
} from "./edits";

const names = (d: RecipeDraft) => d.steps.map((s) => (s.value as { name: string }).name);
function threeSteps(): RecipeDraft {
  let d = emptyDraft();
  for (const tool of ["create_scene", "create_light", "take_screenshot"]) d = addStep(d, d.steps.length, tool).draft;
  return d;
}

describe("withKey", () => {
  it("inserts a new key before the first key ranked after it and keeps existing order", () => {
    expect(Object.keys(withKey({ name: 1, steps: 2 }, "author", 3, ["name", "description", "version", "author", "variables", "steps"]))).toEqual(["name", "author", "steps"]);
    expect(Object.keys(withKey({ b: 1, a: 2 }, "a", 5, ["a", "b"]))).toEqual(["b", "a"]);
    expect(Object.keys(withKey({ a: 1 }, "zzz", 2, ["a"]))).toEqual(["a", "zzz"]);
  });

  it("removes a key with undefined and returns the same object when nothing changes", () => {
    const r = { a: 1 };
    expect(withKey(r, "a", 1)).toBe(r);
    expect(withKey(r, "b", undefined)).toBe(r);
    expect(withKey(r, "a", undefined)).toEqual({});
  });
});

describe("step edits", () => {
  it("adds steps named after their tool, unique, with the steps key in place", () => {
    let d = setField(emptyDraft(), "author", "me");
    d = addStep(d, 0, "take_screenshot").draft;
    d = addStep(d, 1, "take_screenshot").draft;
    expect(names(d)).toEqual(["Take screenshot", "Take screenshot 2"]);
    expect(Object.keys(d.fields)).toEqual(["name", "description", "author", "steps"]);
    expect(d.fields.steps).toBe(STEPS_SLOT);
  });

  it("places params in the tool's order and removes emptied vectors and params", () => {
    const d0 = threeSteps();
    const uid = d0.steps[1].uid;
    const order = [["name", "type", "intensity", "position", "rotation"], ["x", "y", "z"]];
    let d = setParam(d0, uid, ["rotation", "y"], -30, order);
    d = setParam(d, uid, ["name"], "Sun", order);
    d = setParam(d, uid, ["rotation", "x"], 50, order);
    expect(d.steps[1].value).toEqual({ name: "Create light", tool: "create_light", params: { name: "Sun", rotation: { x: 50, y: -30 } } });
    expect(Object.keys((d.steps[1].value as any).params.rotation)).toEqual(["x", "y"]);
    d = setParam(d, uid, ["rotation", "x"], undefined, order);
    d = setParam(d, uid, ["rotation", "y"], undefined, order);
    d = setParam(d, uid, ["name"], undefined, order);
    expect(d.steps[1].value).toEqual({ name: "Create light", tool: "create_light" });
  });

  it("copies only the changed step: the others keep their identity", () => {
    const d0 = threeSteps();
    const d = setStepField(d0, d0.steps[0].uid, "condition", "vars.x > 1");
    expect(d.steps[1]).toBe(d0.steps[1]);
    expect(d.steps[0]).not.toBe(d0.steps[0]);
    expect(Object.keys(d.steps[0].value as object)).toEqual(["name", "tool", "condition"]);
    expect(Object.keys(setStepField(d, d.steps[0].uid, "id", "first").steps[0].value as object)).toEqual(["name", "id", "tool", "condition"]);
  });

  it("keeps the params the new tool also has when the tool changes", () => {
    const d0 = threeSteps();
    const uid = d0.steps[1].uid;
    const d = setParam(setParam(d0, uid, ["name"], "Sun"), uid, ["intensity"], 2);
    expect(changeTool(d, uid, "create_gameobject", ["name", "type"]).steps[1].value).toEqual({ name: "Create light", tool: "create_gameobject", params: { name: "Sun" } });
  });

  it("duplicates after the last selected step with fresh names and ids", () => {
    const d0 = threeSteps();
    const withId = setStepField(d0, d0.steps[0].uid, "id", "scene");
    const { draft, uids } = duplicateSteps(withId, [withId.steps[0].uid]);
    expect(names(draft)).toEqual(["Create scene", "Create scene 2", "Create light", "Take screenshot"]);
    expect((draft.steps[1].value as { id: string }).id).toBe("create_scene_2");
    expect(draft.steps[1].uid).toBe(uids[0]);
  });

  it("keeps a pasted step's explicit id when no step has it", () => {
    const d = insertSteps(threeSteps(), 0, [{ name: "Primary", id: "primary", tool: "create_material" }]).draft;
    expect(d.steps[0].value).toEqual({ name: "Primary", id: "primary", tool: "create_material" });
  });

  it("moves one step or a block of steps and stops at the ends", () => {
    const d0 = threeSteps();
    const [a, b, c] = d0.steps.map((s) => s.uid);
    expect(names(moveStepTo(d0, c, 0))).toEqual(["Take screenshot", "Create scene", "Create light"]);
    expect(names(moveSteps(d0, [a, b], 1))).toEqual(["Take screenshot", "Create scene", "Create light"]);
    expect(moveSteps(d0, [a], -1)).toBe(d0);
    expect(moveSteps(d0, [c], 1)).toBe(d0);
  });

  it("removes the named steps only", () => {
    const d0 = threeSteps();
    expect(names(removeSteps(d0, [d0.steps[1].uid]))).toEqual(["Create scene", "Take screenshot"]);
    expect(removeSteps(d0, ["nope"])).toBe(d0);
  });

  it("finds a name whose id is free too", () => {
    let d = emptyDraft();
    d = insertSteps(d, 0, [{ name: "Make_it", tool: "x" }]).draft;
    expect(uniqueStepName(d, "make it")).toBe("make it 2");
  });
});

describe("renameReferences", () => {
  it("points placeholders and conditions at the new id, and nothing else", async () => {
    const { renameReferences, stepIdOf } = await import("./edits");
    const d0 = insertSteps(emptyDraft(), 0, [
      { name: "Create sphere", tool: "create_gameobject" },
      {
        name: "Paint",
        tool: "set_material",
        params: { target: "{{ steps.create_sphere.result.object.name }}", note: "steps.create_sphere stays: not a placeholder", other: "{{ steps.create_sphere_2.result }}" },
        condition: 'steps.create_sphere.status == "succeeded" && steps["create_sphere"].result != null',
      },
    ]).draft;
    const { draft, count } = renameReferences(d0, "create_sphere", "create_ball");
    expect(count).toBe(2);
    expect(draft.steps[1].value).toEqual({
      name: "Paint",
      tool: "set_material",
      params: { target: "{{ steps.create_ball.result.object.name }}", note: "steps.create_sphere stays: not a placeholder", other: "{{ steps.create_sphere_2.result }}" },
      condition: 'steps.create_ball.status == "succeeded" && steps["create_ball"].result != null',
    });
    expect(draft.steps[0]).toBe(d0.steps[0]);
    expect(renameReferences(d0, "nothing_refers", "x").draft).toBe(d0);
    expect(stepIdOf({ name: "Create sphere" })).toBe("create_sphere");
    expect(stepIdOf({ name: "x", id: "mine" })).toBe("mine");
  });
});
