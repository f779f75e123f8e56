// Invariant: an import adds every record of its plan in one operation that undoes exactly; names
// taken in the target get Blender's ".001" suffix (objects and materials alike, parents following
// their renamed objects); an identical material is reused rather than duplicated; meshes are
// shared by id.
import { describe, expect, it } from "vitest";
import { applyOperation } from "./apply";
import { applyChanges, invertChanges } from "./changes";
import { canonicalJson } from "./canonical-json";
import { freeName, type ImportObject, type ImportPlan } from "./operations-import";
import { initialState } from "./state";
import type { ObjectRecord, SceneEntity } from "./types";

const zero = { x: 0, y: 0, z: 0 }, one = { x: 1, y: 1, z: 1 };
const obj = (name: string, parent: number | null, extra: Partial<ImportObject> = {}): ImportObject => ({
  name, parent, kind: "empty", position: zero, rotation: zero, scale: one, mesh: null, material: null, light: null, keyframes: [], ...extra,
});
const mesh = { type: "mesh" as const, id: "mesh/abc", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], normals: [0, 0, 1, 0, 0, 1, 0, 0, 1], indices: [0, 1, 2] };
const plan = (): ImportPlan => ({
  objects: [obj("Robot", null), obj("Body", 0, { kind: "mesh", mesh: mesh.id, material: 0 }), obj("Arm", 1, { kind: "mesh", mesh: mesh.id, material: 1 })],
  meshes: [mesh],
  materials: [{ name: "Red", color: { r: 1, g: 0, b: 0, a: 1 }, metallic: 0, roughness: 0.5 }, { name: "Blue", color: { r: 0, g: 0, b: 1, a: 1 }, metallic: 0, roughness: 0.5 }],
});
const run = (state: Map<string, SceneEntity>, tool: string, params: Record<string, unknown>) => {
  const out = applyOperation(state, { tool, app: "godot", params });
  applyChanges(state, out.changes);
  return out;
};

describe("import", () => {
  it("adds objects, one shared mesh and materials as one operation that undoes exactly", () => {
    const state = initialState();
    const before = canonicalJson([...state]);
    const out = run(state, "import_asset", { plan: plan() });
    expect(out.result).toMatchObject({ roots: ["Robot"], renamed: [], counts: { objects: 3, meshes: 1, materials: 2, triangles: 2 } });
    expect((state.get("object/godot/Main/Arm") as ObjectRecord)).toMatchObject({ parent: "Body", material: "Blue", mesh: "mesh/abc", kind: "mesh" });
    expect(out.changes.map((c) => c.id)).toEqual(["material/godot/Red", "material/godot/Blue", "mesh/abc", "object/godot/Main/Robot", "object/godot/Main/Body", "object/godot/Main/Arm"]);
    applyChanges(state, invertChanges(out.changes));
    expect(canonicalJson([...state])).toBe(before);
  });

  it("renames clashing objects and materials, keeps parents attached and reuses an identical material", () => {
    const state = initialState();
    run(state, "create_gameobject", { name: "Robot", type: "Empty" });
    run(state, "create_gameobject", { name: "Body", type: "Cube" });
    run(state, "create_material", { name: "Red", color: { r: 1, g: 0, b: 0, a: 1 }, metallic: 0, roughness: 0.5 });
    run(state, "create_material", { name: "Blue", color: { r: 0, g: 0, b: 0.5, a: 1 }, metallic: 0, roughness: 0.5 });
    const out = run(state, "transfer_asset", { plan: plan() });
    expect(out.result).toMatchObject({
      roots: ["Robot.001"], objects: ["Robot.001", "Body.001", "Arm"],
      renamed: [{ kind: "material", from: "Blue", to: "Blue.001" }, { kind: "object", from: "Robot", to: "Robot.001" }, { kind: "object", from: "Body", to: "Body.001" }],
    });
    expect(state.get("object/godot/Main/Arm")).toMatchObject({ parent: "Body.001", material: "Blue.001" });
    expect(state.get("object/godot/Main/Body.001")).toMatchObject({ parent: "Robot.001", material: "Red" });
    expect(out.changes.some((c) => c.id === "material/godot/Red")).toBe(false);
  });

  it("refuses a plan whose parent does not precede its child, changing nothing", () => {
    const state = initialState();
    const bad = plan();
    bad.objects[1].parent = 2;
    expect(() => applyOperation(state, { tool: "import_asset", app: "godot", params: { plan: bad } })).toThrow(expect.objectContaining({ code: "INVALID_IMPORT" }));
  });
});

describe("freeName", () => {
  it("follows Blender: the name if free, else the base with the first free .NNN", () => {
    const taken = new Set(["Cube", "Cube.001", "Lamp.002"]);
    expect(freeName("Sphere", (n) => taken.has(n))).toBe("Sphere");
    expect(freeName("Cube", (n) => taken.has(n))).toBe("Cube.002");
    expect(freeName("Cube.001", (n) => taken.has(n))).toBe("Cube.002");
    expect(freeName("Lamp.002", (n) => taken.has(n))).toBe("Lamp.001");
  });
});

describe("deleting imported objects", () => {
  it("drops a mesh with its last user, keeps it while another object uses it, and undoes exactly", () => {
    const state = initialState();
    run(state, "import_asset", { plan: plan() });
    run(state, "import_asset", { plan: { objects: [obj("Statue", null, { kind: "mesh", mesh: mesh.id })], meshes: [], materials: [] } });
    // Compared as objects: undo restores every record, though not the map's insertion order.
    const before = canonicalJson(Object.fromEntries(state));
    // Robot's tree (Body and Arm use the mesh) goes, but Statue still uses it.
    const first = run(state, "delete_object", { target: "Robot" });
    expect(first.changes.map((c) => c.id)).not.toContain(mesh.id);
    expect(state.has(mesh.id)).toBe(true);
    const last = run(state, "delete_object", { target: "Statue" });
    expect(last.changes.map((c) => c.id)).toEqual(["object/godot/Main/Statue", mesh.id]);
    expect(state.has(mesh.id)).toBe(false);
    applyChanges(state, invertChanges(last.changes));
    applyChanges(state, invertChanges(first.changes));
    expect(canonicalJson(Object.fromEntries(state))).toBe(before);
  });

  it("keeps a mesh another app's scene still uses", () => {
    const state = initialState();
    run(state, "import_asset", { plan: plan() });
    applyChanges(state, applyOperation(state, { tool: "import_asset", app: "unity", params: { plan: { objects: [obj("Copy", null, { kind: "mesh", mesh: mesh.id })], meshes: [], materials: [] } } }).changes);
    run(state, "delete_object", { target: "Robot" });
    expect(state.has(mesh.id)).toBe(true);
  });
});
