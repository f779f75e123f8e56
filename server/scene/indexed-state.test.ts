// Invariant: the container indexes of IndexedState always list exactly the records a full scan
// would find, whatever sequence of sets and deletes produced the state.
import { describe, expect, it } from "vitest";
import { applyOperation } from "./apply";
import { applyChanges, invertChanges } from "./changes";
import { appMaterials, listScenes, sceneObjects } from "./state";
import { initialState } from "./state";
import type { Operation, SceneState } from "./types";

const plain = (s: SceneState) => new Map(s);

describe("IndexedState", () => {
  it("lists the same members as a scan through creates, moves, deletes and undo", () => {
    const state = initialState();
    const ops: Operation[] = [
      { tool: "create_scene", app: "unity", params: { name: "B" } },
      { tool: "create_gameobject", app: "unity", params: { name: "P", type: "Empty" } },
      { tool: "create_gameobject", app: "unity", params: { name: "C", type: "Cube", parent: "P" } },
      { tool: "create_material", app: "unity", params: { name: "M", color: { r: 1, g: 0, b: 0, a: 1 }, metallic: 0, roughness: 0.5 } },
      { tool: "open_scene", app: "unity", params: { name: "Main" } },
      { tool: "create_gameobject", app: "unity", params: { name: "D", type: "Sphere" } },
      { tool: "delete_object", app: "unity", params: { target: "P", scene: "B" } },
    ];
    const history = [];
    for (const op of ops) {
      const { changes } = applyOperation(state, op);
      applyChanges(state, changes);
      history.push(changes);
      for (const scene of listScenes(plain(state), "unity")) expect(sceneObjects(state, scene)).toEqual(sceneObjects(plain(state), scene));
      expect(listScenes(state, "unity")).toEqual(listScenes(plain(state), "unity"));
      expect(appMaterials(state, "unity")).toEqual(appMaterials(plain(state), "unity"));
    }
    for (const changes of history.reverse()) applyChanges(state, invertChanges(changes));
    expect(listScenes(state, "unity").map((s) => s.name)).toEqual(["Main"]);
    expect(sceneObjects(state, listScenes(state, "unity")[0])).toEqual([]);
  });
});
