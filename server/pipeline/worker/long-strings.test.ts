import { describe, expect, it } from "vitest";
import { packLongStrings, unpackLongStrings } from "./long-strings";

describe("long strings across threads", () => {
  it("moves long strings to a shared buffer and puts them back exactly, leaving the input alone", async () => {
    const ascii = "QUJD".repeat(1_500_000); // 6 MB: several slices
    const unicode = "é😀".repeat(200_000) + "x"; // surrogate pairs across slice boundaries
    const records = new Map<string, unknown>([
      ["mesh/a", { type: "mesh", positions: ascii, uvs: [unicode, "short"], extras: JSON.parse('{"__proto__": "data"}') }],
      ["material/b", { type: "material", name: "B" }],
    ]);
    const task = { kind: "encode", source: { records, asset: { name: "A" } } };
    const { value, packed } = await packLongStrings(task);
    expect(packed!.strings.map((s) => s.path)).toEqual([["source", "records", "mesh/a", "positions"], ["source", "records", "mesh/a", "uvs", 0]]);
    const sent = structuredClone(value);
    expect(JSON.stringify(sent).length).toBeLessThan(1000);
    expect((task.source.records.get("mesh/a") as { positions: string }).positions).toBe(ascii); // not mutated
    const back = unpackLongStrings(sent, structuredClone(packed));
    expect(back).toEqual(task);
  });

  it("leaves a task without long strings as it is", async () => {
    const task = { kind: "scan", main: "/a.obj" };
    expect(await packLongStrings(task)).toEqual({ value: task, packed: null });
  });
});
