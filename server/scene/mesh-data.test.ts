import { describe, expect, it } from "vitest";
import { meshDataOf, meshTriangles, storeArray } from "./mesh-data";
import type { MeshRecord } from "./types";

describe("mesh record arrays", () => {
  const positions = Float32Array.from([0, 0, 0, 1, 0, 0, 0, 1.5, -2.25, 3e-8, 1e30, -0]);
  const normals = Float32Array.from([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0]);
  const indices = Uint32Array.from([0, 1, 2, 2, 3, 4_000_000_000]);

  it("round-trips float32 and uint32 arrays bit for bit through base64", () => {
    const record: MeshRecord = { type: "mesh", id: "mesh/x", positions: storeArray(positions), normals: storeArray(normals), indices: storeArray(indices) };
    expect(typeof record.positions).toBe("string");
    const data = meshDataOf(JSON.parse(JSON.stringify(record)));
    expect(data.positions).toEqual(positions);
    expect(Object.is(data.positions[11], -0)).toBe(true);
    expect(data.normals).toEqual(normals);
    expect(data.indices).toEqual(indices);
    expect(meshTriangles(record)).toBe(2);
  });

  it("stores a view's own bytes, not its whole buffer", () => {
    const view = indices.subarray(3, 6);
    expect(meshDataOf({ type: "mesh", id: "m", positions: "", normals: "", indices: storeArray(view) }).indices).toEqual(Uint32Array.from([2, 3, 4_000_000_000]));
  });

  it("decodes arrays of every base64 padding length, and counts triangles without decoding", () => {
    // 4, 8 and 12 bytes encode with 2, 1 and 0 padding characters.
    for (let n = 1; n <= 9; n++) {
      const indices = Uint32Array.from({ length: n }, (_, k) => k * 1000);
      const record: MeshRecord = { type: "mesh", id: "m", positions: "", normals: "", indices: storeArray(indices) };
      expect(meshDataOf(record).indices).toEqual(indices);
      expect(meshTriangles(record)).toBe(n / 3);
    }
  });

  it("refuses a damaged record with a clear error", () => {
    const record: MeshRecord = { type: "mesh", id: "m", positions: storeArray(positions).slice(0, -4), normals: "", indices: "" };
    expect(() => meshDataOf(record)).toThrow("corrupt mesh record");
    expect(() => meshDataOf({ ...record, positions: "!!!!!!!!" })).toThrow("corrupt mesh record");
  });

  it("still reads records written with plain number arrays", () => {
    const legacy: MeshRecord = { type: "mesh", id: "m", positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], normals: [0, 0, 1, 0, 0, 1, 0, 0, 1], indices: [0, 1, 2] };
    const data = meshDataOf(legacy);
    expect(data.positions).toBeInstanceOf(Float32Array);
    expect(Array.from(data.positions)).toEqual(legacy.positions);
    expect(Array.from(data.indices)).toEqual([0, 1, 2]);
    expect(meshTriangles(legacy)).toBe(1);
  });
});
