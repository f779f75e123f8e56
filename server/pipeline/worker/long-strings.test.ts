import { describe, expect, it } from "vitest";
import { packLongStrings, unpackLongStrings, unpackLongStringsInTurns } from "./long-strings";

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

  it("brings a worker's answer back in turns, ASCII and UTF-8 strings alike", async () => {
    const ascii = "QUJD".repeat(300_000);
    const latin = "é".repeat(300_000); // one UTF-16 unit, two UTF-8 bytes: must not be read as latin1
    const answer = { plan: { meshes: [{ id: "mesh/x", positions: ascii, normals: latin, indices: "AAAA" }] }, warnings: [] };
    const { value, packed } = await packLongStrings(answer);
    expect(packed!.strings.map((s) => s.ascii)).toEqual([true, false]);
    const back = await unpackLongStringsInTurns(structuredClone(value), structuredClone(packed));
    expect(back).toEqual(answer);
    expect(await unpackLongStringsInTurns(answer, null)).toBe(answer);
  });

  it("does not walk deeply nested data (a file's extras), which still arrives whole", async () => {
    let deep: unknown = { leaf: "x".repeat(300_000) };
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const answer = { plan: { meshes: [{ positions: "Q".repeat(300_000) }], extras: deep } };
    const { value, packed } = await packLongStrings(answer);
    expect(packed!.strings.map((s) => s.path)).toEqual([["plan", "meshes", 0, "positions"]]);
    expect((value as typeof answer).plan.extras).toBe(deep);
  });

  it("leaves a task without long strings as it is", async () => {
    const task = { kind: "scan", main: "/a.obj" };
    expect(await packLongStrings(task)).toEqual({ value: task, packed: null });
  });
});
