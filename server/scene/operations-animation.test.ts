// Invariant: set_keyframe keeps one key per time, sorted, keying only what it is given (with the
// current transform filling left-out components); add_modifier exists for Blender mesh objects
// only, takes only its own fields, and refuses stacks that would make an unbounded mesh. Both
// undo exactly.
import { describe, expect, it } from "vitest";
import { applyOperation } from "./apply";
import { applyChanges, invertChanges } from "./changes";
import { canonicalJson } from "./canonical-json";
import { initialState } from "./state";
import type { AppId, ObjectRecord, SceneEntity } from "./types";

type State = Map<string, SceneEntity>;
const run = (state: State, tool: string, params: Record<string, unknown>, app: AppId = "blender") => {
  const out = applyOperation(state, { tool, app, params });
  applyChanges(state, out.changes);
  return out;
};
const object = (state: State, name: string, app: AppId = "blender") => state.get(`object/${app}/Main/${name}`) as ObjectRecord;

describe("set_keyframe", () => {
  it("keys the current transform when no channel is given, and only the given channels otherwise", () => {
    const state = initialState();
    run(state, "create_gameobject", { name: "C", type: "Cube", position: { x: 1, y: 2, z: 3 } });
    run(state, "set_keyframe", { target: "C", time: 2, rotation: { z: 90 } });
    run(state, "set_keyframe", { target: "C", time: 0 });
    expect(object(state, "C").keyframes).toEqual([
      { time: 0, position: { x: 1, y: 2, z: 3 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 } },
      { time: 2, rotation: { x: 0, y: 0, z: 90 } },
    ]);
  });

  it("updates the key at the same time instead of adding one", () => {
    const state = initialState();
    run(state, "create_gameobject", { name: "C", type: "Cube" });
    run(state, "set_keyframe", { target: "C", time: 1, position: { x: 1 } });
    const out = run(state, "set_keyframe", { target: "C", time: 1 + 1e-9, scale: { y: 2 } });
    expect(object(state, "C").keyframes).toEqual([{ time: 1, position: { x: 1, y: 0, z: 0 }, scale: { x: 1, y: 2, z: 1 } }]);
    expect(out.result).toMatchObject({ keyframes: 1 });
  });

  it("undoes exactly and refuses a missing target", () => {
    const state = initialState();
    run(state, "create_gameobject", { name: "C", type: "Cube" }, "unity");
    const before = canonicalJson([...state]);
    const out = run(state, "set_keyframe", { target: "C", time: 0 }, "unity");
    applyChanges(state, invertChanges(out.changes));
    expect(canonicalJson([...state])).toBe(before);
    expect(() => applyOperation(state, { tool: "set_keyframe", app: "unity", params: { target: "Nope", time: 0 } })).toThrow(expect.objectContaining({ code: "OBJECT_NOT_FOUND" }));
  });
});

describe("add_modifier", () => {
  it("stacks mirror and array modifiers with their defaults and reports the resulting triangles", () => {
    const state = initialState();
    run(state, "create_gameobject", { name: "C", type: "Cube" });
    run(state, "add_modifier", { target: "C", type: "mirror" });
    const out = run(state, "add_modifier", { target: "C", type: "array", count: 3 });
    expect(object(state, "C").modifiers).toEqual([{ type: "mirror", axis: "x" }, { type: "array", count: 3, offset: { x: 1, y: 0, z: 0 } }]);
    expect(out.result).toMatchObject({ triangles: 12 * 2 * 3 });
  });

  it.each([
    ["an object of another app", "unity", { target: "C", type: "mirror" }, "MODIFIERS_UNSUPPORTED"],
    ["an Empty", "blender", { target: "E", type: "mirror" }, "NOT_A_MESH"],
    ["a count on a mirror", "blender", { target: "C", type: "mirror", count: 2 }, "INVALID_MODIFIER"],
    ["an axis on an array", "blender", { target: "C", type: "array", axis: "y" }, "INVALID_MODIFIER"],
    ["a stack beyond the triangle limit", "blender", { target: "C", type: "array", count: 1000 }, "MESH_TOO_LARGE"],
  ] as const)("refuses %s", (_label, app, params, code) => {
    const state = initialState();
    for (const a of ["blender", "unity"] as const) run(state, "create_gameobject", { name: "C", type: "Cube" }, a);
    run(state, "create_gameobject", { name: "E", type: "Empty" });
    for (let i = 0; i < 2; i++) run(state, "add_modifier", { target: "C", type: "array", count: 1000 / 8 });
    const before = canonicalJson([...state]);
    expect(() => applyOperation(state, { tool: "add_modifier", app, params })).toThrow(expect.objectContaining({ code, status: 400 }));
    expect(canonicalJson([...state])).toBe(before);
  });
});
