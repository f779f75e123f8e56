import { describe, expect, it } from "vitest";
import type { ObjectRecord } from "@/server/scene/types";
import { applyRecords, childrenByParent, type SceneModel } from "./scene-model";

const base: SceneModel = {
  app: "unity", scene: "Demo", scenes: ["Demo"], camera: { position: { x: 0, y: 1, z: -10 }, rotation: { x: 0, y: 0, z: 0 }, fov: 60 },
  objects: [], materials: [],
};
const record = (name: string, extra: Partial<ObjectRecord> = {}): ObjectRecord => ({
  type: "object", id: `object/unity/Demo/${encodeURIComponent(name)}`, app: "unity", scene: "Demo", name, kind: "mesh", primitive: "Cube", mesh: null,
  parent: null, material: null, light: null, keyframes: [], modifiers: [],
  position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 }, ...extra,
});

describe("applyRecords", () => {
  it("adds, replaces and removes objects of its scene, and ignores other scenes", () => {
    let m = applyRecords(base, [{ id: record("A b").id, after: record("A b") }]);
    expect(m.objects.map((o) => o.name)).toEqual(["A b"]);
    m = applyRecords(m, [{ id: record("A b").id, after: record("A b", { position: { x: 2, y: 0, z: 0 } }) }]);
    expect(m.objects[0].position.x).toBe(2);
    const other = { ...record("X"), scene: "Other", id: "object/unity/Other/X" };
    expect(applyRecords(m, [{ id: other.id, after: other }])).toBe(m);
    expect(applyRecords(m, [{ id: record("A b").id, after: null }]).objects).toEqual([]);
  });

  it("puts a new object where get_scene lists it (by name), not last", () => {
    let m = applyRecords(base, ["Ball", "Cube", "Sun"].map((n) => ({ id: record(n).id, after: record(n) })));
    m = applyRecords(m, [{ id: record("LiveCube").id, after: record("LiveCube") }]);
    expect(m.objects.map((o) => o.name)).toEqual(["Ball", "Cube", "LiveCube", "Sun"]);
  });

  it("follows the camera and materials", () => {
    const m = applyRecords(base, [
      { id: "scene/unity/Demo", after: { type: "scene", id: "scene/unity/Demo", app: "unity", name: "Demo", camera: { ...base.camera, fov: 40 } } },
      { id: "material/unity/Red", after: { type: "material", id: "material/unity/Red", app: "unity", name: "Red", color: { r: 1, g: 0, b: 0, a: 1 }, metallic: 0, roughness: 0.5 } },
    ]);
    expect(m.camera.fov).toBe(40);
    expect(m.materials.map((x) => x.name)).toEqual(["Red"]);
  });
});

describe("childrenByParent", () => {
  it("nests children (by name) and treats a missing parent as a root", () => {
    const m = applyRecords(base, ["P", "C", "Orphan"].map((n) => ({ id: record(n).id, after: record(n, { parent: n === "C" ? "P" : n === "Orphan" ? "Gone" : null }) })));
    const tree = childrenByParent(m.objects);
    expect(tree.get("")!.map((o) => o.name)).toEqual(["Orphan", "P"]);
    expect(tree.get("P")!.map((o) => o.name)).toEqual(["C"]);
  });
});
