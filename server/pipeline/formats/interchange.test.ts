// Invariant: validateScene accepts the fixture and rejects every structural error an encoder could
// otherwise turn into a broken file; the shared helpers (names, normals, world matrices) are exact.
import { describe, expect, it } from "vitest";
import { computeNormals, uniqueNames, validateScene, worldMatrices } from "./interchange";
import { fixtureScene } from "../../../tests/fixtures/formats/scene";

describe("interchange model helpers", () => {
  it("accepts the fixture scene", () => {
    expect(() => validateScene(fixtureScene())).not.toThrow();
  });

  it.each([
    ["a bad parent", (s: ReturnType<typeof fixtureScene>) => void (s.nodes[1].parent = 9), /bad parent/],
    ["a parent cycle", (s: ReturnType<typeof fixtureScene>) => void (s.nodes[0].parent = 1), /parent cycle/],
    ["a bad mesh index", (s: ReturnType<typeof fixtureScene>) => void (s.nodes[0].mesh = 5), /bad mesh/],
    ["an out-of-range vertex index", (s: ReturnType<typeof fixtureScene>) => void (s.meshes[0].indices[0] = 999), /out of range/],
    ["a partial triangle", (s: ReturnType<typeof fixtureScene>) => void (s.meshes[0].indices = s.meshes[0].indices.slice(1)), /whole triangles/],
    ["missing normals", (s: ReturnType<typeof fixtureScene>) => void (s.meshes[0].normals = new Float32Array(3)), /one normal per position/],
    ["unsorted key times", (s: ReturnType<typeof fixtureScene>) => void (s.animations[0].times = [0, 2, 1]), /strictly increasing/],
    ["a non-unit rotation", (s: ReturnType<typeof fixtureScene>) => void (s.nodes[0].rotation = [0, 0, 0, 2]), /unit quaternion/],
    ["a NaN vertex", (s: ReturnType<typeof fixtureScene>) => void (s.meshes[1].positions[4] = NaN), /non-finite positions/],
    ["a short channel", (s: ReturnType<typeof fixtureScene>) => void s.animations[0].translations!.pop(), /2 values for 3 times/],
  ])("rejects %s", (_, mutate, message) => {
    const scene = fixtureScene();
    mutate(scene);
    expect(() => validateScene(scene)).toThrow(message);
  });

  it("suffixes repeated names in order of appearance", () => {
    expect(uniqueNames(["a", "b", "a", "a_2", "a"])).toEqual(["a", "b", "a_2", "a_2_2", "a_3"]);
  });

  it("computes unit normals facing out of counter-clockwise triangles", () => {
    const n = computeNormals(Float32Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0]), Uint32Array.from([0, 1, 2]));
    expect(Array.from(n)).toEqual([0, 0, 1, 0, 0, 1, 0, 0, 1]);
  });

  it("composes world matrices through the hierarchy", () => {
    const world = worldMatrices(fixtureScene());
    // Child at (2,0,0) under a parent at (0,1,0) turned 90° about Y ends up at (0,1,-2).
    expect(world[1].elements.slice(12, 15).map((v) => +v.toFixed(12) + 0)).toEqual([0, 1, -2]) // "+ 0" turns -0 into 0;
  });
});
