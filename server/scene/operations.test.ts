// Invariant: each operation is a pure function of (state, params): it never mutates the state,
// its changes applied to the state give the expected state, and their inverse restores it.
import { describe, expect, it } from "vitest";
import { applyOperation } from "./apply";
import { applyChanges, invertChanges, squashChanges } from "./changes";
import { canonicalJson } from "./canonical-json";
import { DEFAULT_CAMERAS, initialState } from "./state";
import type { Operation, SceneEntity } from "./types";

const snapshot = (s: Map<string, SceneEntity>) => canonicalJson(Object.fromEntries([...s].sort()));

function run(ops: Operation[]) {
  const state = initialState();
  for (const op of ops) applyChanges(state, applyOperation(state, op).changes);
  return state;
}

const op = (tool: string, params: Record<string, unknown>, app: Operation["app"] = "unity"): Operation => ({ tool, app, params });
const white = { r: 1, g: 1, b: 1, a: 1 };

const cases: [string, Operation[], Operation][] = [
  ["create_scene", [], op("create_scene", { name: "S" })],
  ["create_gameobject", [], op("create_gameobject", { name: "C", type: "Cube" })],
  ["create_light", [], op("create_light", { name: "L", type: "Spot", intensity: 2, color: white, range: 5, spot_angle: 40 })],
  ["set_camera", [], op("set_camera", { position: { x: 3 } })],
  ["create_material", [], op("create_material", { name: "M", color: white, metallic: 0, roughness: 0.5 })],
  ["set_material", [op("create_gameobject", { name: "C", type: "Cube" }), op("create_material", { name: "M", color: white, metallic: 0, roughness: 0.5 })], op("set_material", { target: "C", material: "M" })],
  ["set_transform", [op("create_gameobject", { name: "C", type: "Cube" })], op("set_transform", { target: "C", rotation: { y: 45 } })],
  ["delete_object", [op("create_gameobject", { name: "P", type: "Empty" }), op("create_gameobject", { name: "C", type: "Cube", parent: "P" })], op("delete_object", { target: "P" })],
  ["open_scene", [op("create_scene", { name: "S" })], op("open_scene", { name: "Main" })],
];

describe("scene operations", () => {
  it.each(cases)("%s leaves its input untouched and undoes exactly", (_name, setup, operation) => {
    const state = run(setup);
    const before = snapshot(state);
    const outcome = applyOperation(state, operation);
    expect(snapshot(state)).toBe(before);
    expect(outcome.changes.length).toBeGreaterThan(0);
    applyChanges(state, outcome.changes);
    expect(snapshot(state)).not.toBe(before);
    applyChanges(state, invertChanges(outcome.changes));
    expect(snapshot(state)).toBe(before);
  });

  it("deleting a parent deletes its children, children first", () => {
    const state = run([op("create_gameobject", { name: "P", type: "Empty" }), op("create_gameobject", { name: "C", type: "Cube", parent: "P" }), op("create_gameobject", { name: "G", type: "Cube", parent: "C" })]);
    const { changes, result } = applyOperation(state, op("delete_object", { target: "P" }));
    expect(result).toMatchObject({ deleted: ["P", "C", "G"] });
    expect(changes.map((c) => c.id.split("/").pop())).toEqual(["G", "C", "P"]);
  });

  it.each([
    ["a duplicate name", [op("create_gameobject", { name: "C", type: "Cube" })], op("create_gameobject", { name: "C", type: "Sphere" }), "NAME_CONFLICT"],
    ["a missing scene", [], op("create_gameobject", { name: "C", type: "Cube", scene: "Nope" }), "SCENE_NOT_FOUND"],
    ["a missing target", [], op("set_transform", { target: "X" }), "OBJECT_NOT_FOUND"],
  ] as const)("refuses %s with a coded error", (_n, setup, operation, code) => {
    const state = run([...setup]);
    expect(() => applyOperation(state, operation)).toThrow(expect.objectContaining({ code }));
  });

  it("squashing keeps the first before and the last after, and drops no-ops", () => {
    const state = initialState();
    const a = applyOperation(state, op("create_gameobject", { name: "C", type: "Cube" }));
    applyChanges(state, a.changes);
    const b = applyOperation(state, op("set_transform", { target: "C", position: { x: 1 } }));
    applyChanges(state, b.changes);
    const c = applyOperation(state, op("delete_object", { target: "C" }));
    expect(squashChanges([...a.changes, ...b.changes, ...c.changes])).toEqual([]);
    expect(squashChanges([...a.changes, ...b.changes])).toEqual([{ id: a.changes[0].id, before: null, after: b.changes[0].after }]);
  });
});

describe("if_exists on the creating operations", () => {
  const cube = (extra: Record<string, unknown> = {}) => op("create_gameobject", { name: "C", type: "Cube", ...extra });
  const red = { r: 1, g: 0, b: 0, a: 1 };

  it.each([
    ["create_scene", op("create_scene", { name: "S" }), "SCENE_EXISTS"],
    ["create_gameobject", cube(), "NAME_CONFLICT"],
    ["create_light", op("create_light", { name: "C", type: "Point", intensity: 1, color: white, range: 5, spot_angle: 30 }), "NAME_CONFLICT"],
    ["create_material", op("create_material", { name: "M", color: white, metallic: 0, roughness: 0.5 }), "MATERIAL_EXISTS"],
  ] as const)("%s refuses a taken name by default and with if_exists: error", (_n, operation, code) => {
    const state = run([operation.tool === "create_light" ? cube() : operation]);
    expect(() => applyOperation(state, operation)).toThrow(expect.objectContaining({ code }));
    expect(() => applyOperation(state, { ...operation, params: { ...operation.params, if_exists: "error" } })).toThrow(expect.objectContaining({ code }));
  });

  it("reuse returns the existing object unchanged and changes nothing", () => {
    const state = run([cube({ position: { x: 1 } })]);
    const { changes, result } = applyOperation(state, cube({ position: { x: 5 }, if_exists: "reuse" }));
    expect(changes).toEqual([]);
    expect(result).toMatchObject({ outcome: "reused", object: { name: "C", type: "Cube", position: { x: 1, y: 0, z: 0 } } });
  });

  it("reuse refuses an existing object of another type", () => {
    const state = run([cube()]);
    expect(() => applyOperation(state, op("create_gameobject", { name: "C", type: "Sphere", if_exists: "reuse" })))
      .toThrow(expect.objectContaining({ code: "NAME_CONFLICT", details: expect.objectContaining({ existing_type: "Cube", requested_type: "Sphere" }) }));
  });

  it("replace is one change from the old record to the new one, and undoes exactly", () => {
    const state = run([cube({ position: { x: 1 } }), op("create_material", { name: "M", color: white, metallic: 0, roughness: 0.5 }), op("set_material", { target: "C", material: "M" })]);
    const before = snapshot(state);
    const { changes, result } = applyOperation(state, op("create_gameobject", { name: "C", type: "Sphere", position: { x: 2 }, if_exists: "replace" }));
    expect(changes).toHaveLength(1);
    expect(changes[0].before).toMatchObject({ primitive: "Cube", material: "M", position: { x: 1 } });
    expect(changes[0].after).toMatchObject({ primitive: "Sphere", material: null, position: { x: 2 } });
    expect(result).toMatchObject({ outcome: "replaced" });
    applyChanges(state, changes);
    applyChanges(state, invertChanges(changes));
    expect(snapshot(state)).toBe(before);
  });

  it("replace keeps children attached and refuses a child as the new parent", () => {
    const state = run([op("create_gameobject", { name: "P", type: "Empty" }), op("create_gameobject", { name: "K", type: "Cube", parent: "P" })]);
    const { changes } = applyOperation(state, op("create_gameobject", { name: "P", type: "Cube", if_exists: "replace" }));
    applyChanges(state, changes);
    expect(state.get("object/unity/Main/K")).toMatchObject({ parent: "P" });
    expect(() => applyOperation(state, op("create_gameobject", { name: "P", type: "Cube", parent: "K", if_exists: "replace" })))
      .toThrow(expect.objectContaining({ code: "PARENT_CYCLE" }));
    expect(() => applyOperation(state, op("create_gameobject", { name: "P", type: "Cube", parent: "P", if_exists: "replace" })))
      .toThrow(expect.objectContaining({ code: "PARENT_CYCLE" }));
  });

  it("replacing a scene empties it, resets its camera and makes it active, in one operation", () => {
    const state = run([op("create_scene", { name: "S" }), op("create_gameobject", { name: "P", type: "Empty" }), op("create_gameobject", { name: "K", type: "Cube", parent: "P" }), op("set_camera", { position: { x: 9 } }), op("open_scene", { name: "Main" })]);
    const before = snapshot(state);
    const { changes, result } = applyOperation(state, op("create_scene", { name: "S", if_exists: "replace" }));
    expect(result).toMatchObject({ outcome: "replaced", active: true });
    expect(changes.map((c) => c.id)).toEqual(["object/unity/S/K", "object/unity/S/P", "scene/unity/S", "app/unity"]);
    applyChanges(state, changes);
    expect(state.get("scene/unity/S")).toMatchObject({ camera: DEFAULT_CAMERAS.unity });
    expect([...state.keys()].filter((id) => id.startsWith("object/unity/S/"))).toEqual([]);
    applyChanges(state, invertChanges(changes));
    expect(snapshot(state)).toBe(before);
  });

  it("reusing a scene only makes it active", () => {
    const state = run([op("create_scene", { name: "S" }), op("create_gameobject", { name: "P", type: "Empty" }), op("open_scene", { name: "Main" })]);
    const { changes, result } = applyOperation(state, op("create_scene", { name: "S", if_exists: "reuse" }));
    expect(result).toMatchObject({ outcome: "reused" });
    expect(changes).toEqual([expect.objectContaining({ id: "app/unity", after: expect.objectContaining({ activeScene: "S" }) })]);
  });

  it("replacing a material keeps it on the objects that use it; reuse leaves it as it was", () => {
    const state = run([cube(), op("create_material", { name: "M", color: white, metallic: 0, roughness: 0.5 }), op("set_material", { target: "C", material: "M" })]);
    const reused = applyOperation(state, op("create_material", { name: "M", color: red, metallic: 1, roughness: 0, if_exists: "reuse" }));
    expect(reused).toMatchObject({ changes: [], result: { outcome: "reused", material: { color: white } } });
    const replaced = applyOperation(state, op("create_material", { name: "M", color: red, metallic: 1, roughness: 0, if_exists: "replace" }));
    expect(replaced.changes).toEqual([expect.objectContaining({ before: expect.objectContaining({ color: white }), after: expect.objectContaining({ color: red }) })]);
    applyChanges(state, replaced.changes);
    expect(state.get("object/unity/Main/C")).toMatchObject({ material: "M" });
  });
});
