// Invariant: each operation is a pure function of (state, params): it never mutates the state,
// its changes applied to the state give the expected state, and their inverse restores it.
import { describe, expect, it } from "vitest";
import { applyOperation } from "./apply";
import { applyChanges, invertChanges, squashChanges } from "./changes";
import { canonicalJson } from "./canonical-json";
import { initialState } from "./state";
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
