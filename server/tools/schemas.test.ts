// Invariant: shared input pieces refuse what cannot be stored or exported faithfully: text with a
// NUL or a lone surrogate anywhere in the input (keys included), and vector components outside
// the documented range of their kind.
import { describe, expect, it } from "vitest";
import { findUnencodableText, vec3 } from "./schemas";

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
