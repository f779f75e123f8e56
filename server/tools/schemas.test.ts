// Invariant: shared input pieces refuse what cannot be stored or exported faithfully: text with a
// NUL or a lone surrogate anywhere in the input (keys included), and vector components outside
// the documented range of their kind.
import { describe, expect, it } from "vitest";
import { findUnencodableText, vec3 } from "./schemas";
import { TOOLS } from "./index";

describe("findUnencodableText", () => {
  it.each([
    [{ name: "a\u0000b" }, "name", /NUL/],
    [{ name: "\ud800" }, "name", /lone UTF-16 surrogate/],
    [{ name: "x\udc00" }, "name", /lone UTF-16 surrogate/],
    [{ params: { deep: [1, { v: "ok", w: "\ud83d" }] } }, "params.deep.1.w", /surrogate/],
    [{ ["k\u0000"]: 1 }, "k\u0000", /parameter name/],
  ])("finds %j at %s", (input, path, message) => {
    expect(findUnencodableText(input)).toEqual({ path, message: expect.stringMatching(message) });
  });

  it("lets well-formed text through, astral characters and other control characters included", () => {
    expect(findUnencodableText({ name: "Sun \ud83c\udf1e", note: "tab\there", list: ["é", 1, null, true] })).toBeUndefined();
  });
});

describe("vec3 ranges", () => {
  it.each([
    ["position", { x: 1e9, y: -1e9 }, true],
    ["position", { x: 1e308 }, false],
    ["position", { x: "1e400" }, false],
    ["rotation", { z: 720 }, true],
    ["rotation", { z: 1e7 }, false],
    ["scale", { x: 0, y: -2, z: 1e-6 }, true],
    ["scale", { x: 1e-7 }, false],
    ["scale", { x: 1e6 + 1 }, false],
    ["offset", { x: 1.5 }, true],
    ["offset", { x: 1e4 }, false],
  ] as const)("%s %j accepted: %s", (kind, value, accepted) => {
    expect(vec3(kind).safeParse(value).success).toBe(accepted);
  });
});

// Issue 26: names with right-to-left overrides, zero-width characters or a BOM were accepted and
// shown. Refused at every tool's input (docs/hardening.md says why refused, not normalised).
describe("names refuse invisible and bidirectional controls", () => {
  const tool = (n: string) => TOOLS.find((t) => t.name === n)!;
  it.each([
    ["Cube\u202Egnp.exe", "U+202E at 4"],
    ["\uFEFFCube", "U+FEFF at 0"],
    ["Cu\u200Bbe", "U+200B at 2"],
    ["Cube\u2066x\u2069", "U+2066 at 4"],
    ["A\u200Fb", "U+200F at 1"],
    ["x\u0085y", "U+0085 at 1"],
    ["soft\u00ADhyphen", "U+00AD at 4"],
    ["\u200DCube", "U+200D at 0"],
    ["Cube\u200C", "U+200C at 4"],
    ["a \u200Db", "U+200D at 2"],
  ])("refuses %j (%s) in create_gameobject, save_version, create_branch and begin_transaction", (text, where) => {
    for (const [n, input] of [
      ["create_gameobject", { name: text, type: "Cube" }],
      ["save_version", { name: text }],
      ["create_branch", { name: text }],
      ["begin_transaction", { name: text }],
    ] as const) {
      const r = tool(n).input.safeParse(input);
      expect(r.success, n).toBe(false);
      expect(r.error!.issues[0]).toMatchObject({ path: ["name"], message: expect.stringContaining(`invisible or bidirectional control characters (${where})`) });
    }
  });

  it.each(["Cube", "Würfel", "立方体", "مكعب", "می\u200Cخواهم", "👩\u200D🚀 Astronaut", "Sun 🌞", "क्\u200Dष"])("accepts %j", (text) => {
    expect(tool("create_gameobject").input.safeParse({ name: text, type: "Cube" }).success).toBe(true);
    expect(tool("save_version").input.safeParse({ name: text }).success).toBe(true);
  });
});
