import { describe, expect, it } from "vitest";
import type { Change } from "../scene/types";
import { PART, blobParts, joinChanges, splitChanges } from "./op-blobs";

const long = (c: string, n: number) => c.repeat(n);

function meshChange(positions: string, extra: Record<string, unknown> = {}): Change {
  return { id: "mesh/a", before: null, after: { type: "mesh", id: "mesh/a", positions, normals: "AAAA", indices: long("B", 300_000), ...extra } as never };
}

describe("operation blobs", () => {
  it("keeps ordinary changes as plain JSON", () => {
    const changes: Change[] = [{ id: "x", before: null, after: { type: "scene", id: "x", app: "blender", name: "S", camera: {} } as never }];
    expect(splitChanges(changes)).toEqual({ text: JSON.stringify(changes), blob: null });
  });

  it("pulls long strings out of a mesh record and puts them back", () => {
    const changes = [meshChange(long("A", 2 * PART + 17))];
    const { text, blob } = splitChanges(changes);
    expect(text.length).toBeLessThan(500);
    expect(blob).toHaveLength(2);
    const parts = blobParts(blob!);
    expect(parts.map((p) => p.length)).toEqual([PART, PART, 17 + 300_000]);
    expect(joinChanges(text, parts.join(""))).toEqual(changes);
  });

  it("escapes user data that looks like a marker, and keeps __proto__ keys as data", () => {
    const extras = JSON.parse('{"$kilnBlob": [0, 3], "__proto__": {"x": 1}, "nested": {"$kilnEsc": "y"}}');
    const changes = [meshChange(long("C", 300_000), { extras })];
    const { text, blob } = splitChanges(changes);
    const back = joinChanges(text, blobParts(blob!).join(""));
    expect(back).toEqual(changes);
    const got = (back[0].after as unknown as { extras: Record<string, unknown> }).extras;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.hasOwn(got, "__proto__")).toBe(true);
  });

  it("refuses a row whose blob is shorter than it refers to", () => {
    const { text } = splitChanges([meshChange(long("A", 300_000))]);
    expect(() => joinChanges(text, "short")).toThrow(/missing part/);
  });
});
