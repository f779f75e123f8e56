// live_edit / live_adopt: records taken as they are, checked against the state they land in,
// turned into exact, invertible changes.
import { describe, expect, it } from "vitest";
import { applyOperation } from "./apply";
import { applyChanges, invertChanges } from "./changes";
import { canonicalJson } from "./canonical-json";
import { initialState } from "./state";
import { ids, type ObjectRecord, type SceneEntity } from "./types";

const snapshot = (s: Map<string, SceneEntity>) => canonicalJson(Object.fromEntries([...s].sort()));
const obj = (name: string, extra: Partial<ObjectRecord> = {}): ObjectRecord => ({
  type: "object", id: ids.object("blender", "Main", name), app: "blender", scene: "Main", name, kind: "empty", primitive: null, mesh: null,
  parent: null, material: null, light: null, position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 },
  keyframes: [], modifiers: [], ...extra,
});
const edit = (state: Map<string, SceneEntity>, params: Record<string, unknown>, tool = "live_edit") => applyOperation(state, { tool, app: "blender", params });

describe("live_edit", () => {
  it("refuses an edit that leaves an object pointing at nothing", () => {
    const state = initialState();
    applyChanges(state, edit(state, { records: [obj("A"), obj("B", { parent: "A" })] }).changes);
    expect(() => edit(state, { records: [], deleted: [ids.object("blender", "Main", "A")] })).toThrow(/parent "A"/);
    expect(() => edit(state, { records: [obj("C", { material: "Nope" })] })).toThrow(/material "Nope"/);
    expect(() => edit(state, { records: [obj("C", { scene: "Elsewhere", id: "x" })] })).toThrow(/scene "Elsewhere"/);
    expect(() => edit(state, { records: [{ ...obj("C"), app: "unity" }] })).toThrow(/unity/);
    expect(() => edit(state, { records: [], deleted: ["object/unity/Main/X"] })).toThrow(/not a record of blender/);
  });

  it("changes only what differs, computes ids from the fields, and inverts exactly", () => {
    const state = initialState();
    applyChanges(state, edit(state, { records: [obj("A"), obj("B", { parent: "A" })] }).changes);
    const before = snapshot(state);
    const outcome = edit(state, {
      records: [obj("B", { parent: null, position: { x: 1, y: 2, z: 3 } }), { ...obj("C"), id: "wrong" }],
      deleted: [ids.object("blender", "Main", "A")],
    });
    expect(snapshot(state)).toBe(before);
    expect(outcome.changes.map((c) => c.id).sort()).toEqual([ids.object("blender", "Main", "A"), ids.object("blender", "Main", "B"), ids.object("blender", "Main", "C")].sort());
    expect(outcome.changes.find((c) => c.id === ids.object("blender", "Main", "A"))!.after).toBeNull();
    applyChanges(state, outcome.changes);
    expect(state.get(ids.object("blender", "Main", "C"))).toMatchObject({ id: ids.object("blender", "Main", "C") });
    applyChanges(state, invertChanges(outcome.changes));
    expect(snapshot(state)).toBe(before);
  });

  it("live_adopt replaces the app's whole scene and leaves other apps alone", () => {
    const state = initialState();
    applyChanges(state, applyOperation(state, { tool: "create_gameobject", app: "unity", params: { name: "U", type: "Cube" } }).changes);
    applyChanges(state, edit(state, { records: [obj("Old")] }).changes);
    const records: SceneEntity[] = [
      { type: "app", id: "", app: "blender", activeScene: "Scene" },
      { type: "scene", id: "", app: "blender", name: "Scene", camera: { position: { x: 0, y: 0, z: 5 }, rotation: { x: 0, y: 0, z: 0 }, fov: 40 } },
      { ...obj("New"), scene: "Scene" },
    ];
    applyChanges(state, edit(state, { records, replace: true }, "live_adopt").changes);
    const blender = [...state.keys()].filter((id) => id.includes("blender")).sort();
    expect(blender).toEqual(["app/blender", "object/blender/Scene/New", "scene/blender/Scene"]);
    expect(state.has("object/unity/Main/U")).toBe(true);
    expect(() => edit(state, { records: records.slice(1), replace: true }, "live_adopt")).toThrow(/active/);
  });
});
