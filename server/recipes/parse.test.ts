// Invariant: parseRecipeYaml never throws and never hangs on hostile text; every problem comes
// back as an issue with a path and a 1-based line/column, and no key can reach a prototype.
import { describe, expect, it } from "vitest";
import { formatPath, parseRecipeYaml } from "./parse";

const aliasBomb = (() => {
  let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  let previous = "a";
  for (const name of "bcdefghij") {
    text += `${name}: &${name} [${Array(9).fill(`*${previous}`).join(",")}]\n`;
    previous = name;
  }
  return text;
})();

describe("parseRecipeYaml", () => {
  it("parses a mapping and locates nodes by path", () => {
    const source = parseRecipeYaml("name: demo\nsteps:\n  - name: a\n    params: { position: { x: 1 } }\n");
    expect(source.errors).toEqual([]);
    expect(source.value).toEqual({ name: "demo", steps: [{ name: "a", params: { position: { x: 1 } } }] });
    expect(source.locate(["steps", 0, "params", "position", "x"])).toEqual({ line: 4, column: 30 });
    expect(source.locate(["steps", 0, "params"], { key: true })).toEqual({ line: 4, column: 5 });
    // A path that does not exist points at its deepest existing ancestor.
    expect(source.locate(["steps", 0, "tool"])).toEqual({ line: 3, column: 5 });
  });

  it("stops an alias bomb with an error", () => {
    const source = parseRecipeYaml(aliasBomb); // unbounded, its expansion would not fit in memory
    expect(source.value).toBeUndefined();
    expect(source.errors[0].message).toMatch(/aliases expand more than 100 times/);
  });

  it("rejects a 2 MiB file before parsing it", () => {
    const text = `name: big\ndescription: "${"x".repeat(2 * 1024 * 1024)}"\n`;
    const source = parseRecipeYaml(text);
    expect(source.errors).toEqual([{ path: "", line: 1, column: 1, message: expect.stringMatching(/too large.*262144 bytes/) }]);
  });

  it("refuses more than 1,000 steps before parsing, counting tool keys in block and flow style", () => {
    const steps = (n: number, flow: boolean) =>
      Array.from({ length: n }, (_, i) => (flow ? `  - { name: s${i}, tool: create_scene }` : `  - name: s${i}\n    tool: create_scene`)).join("\n");
    for (const flow of [false, true]) {
      const source = parseRecipeYaml(`name: many\ndescription: d\nsteps:\n${steps(1001, flow)}\n`);
      // Refused before parsing: the error is the pre-scan's (counted tool: keys, at line 1), with no parsed value.
      expect(source.errors).toEqual([{ path: "", line: 1, column: 1, message: expect.stringMatching(/1001 tool: keys.*the limit is 1000 steps/) }]);
      expect(source.value).toBeUndefined();
      expect(parseRecipeYaml(`name: many\ndescription: d\nsteps:\n${steps(1000, flow)}\n`).errors).toEqual([]);
    }
  });

  it("takes the size limit as an option, counted in UTF-8 bytes", () => {
    expect(parseRecipeYaml("a: ééé\n", { maxBytes: 8 }).errors[0].message).toMatch(/too large/);
    expect(parseRecipeYaml("a: eee\n", { maxBytes: 8 }).errors).toEqual([]);
  });

  it.each([
    ["flow sequences", `a: ${"[".repeat(1000)}${"]".repeat(1000)}`],
    ["flow mappings", `a: ${"{b: ".repeat(1000)}1${"}".repeat(1000)}`],
    ["compact block sequences", `${"- ".repeat(1000)}1`],
    ["indented block mappings", Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n") + " 1"],
    ["block mappings between blank lines", Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i)}k:\n\n# c`).join("\n") + " 1"],
    ["an unclosed 100,000-deep sequence", `a: ${"[".repeat(100_000)}`],
  ])("rejects 1000-deep nesting of %s with a clear error", (_kind, text) => {
    // Some of these texts exceed the default size limit; lift it to reach the nesting guard.
    const source = parseRecipeYaml(text, { maxBytes: 4 * 1024 * 1024 });
    expect(source.value).toBeUndefined();
    expect(source.errors).toHaveLength(1);
    expect(source.errors[0].message).toMatch(/nesting is deeper than 64 levels/);
  });

  it("rejects aliases that stack shallow collections into a deep value", () => {
    const levels = Array.from({ length: 8 }, (_, i) => `l${i}: &l${i} ${"[".repeat(10)}${i === 0 ? "1" : `*l${i - 1}`}${"]".repeat(10)}`);
    // yaml's alias budget already stops this at the default; the depth check is the second guard.
    expect(parseRecipeYaml(`${levels.join("\n")}\n`).errors[0].message).toMatch(/aliases expand more than 100 times/);
    const source = parseRecipeYaml(`${levels.join("\n")}\n`, { maxAliasCount: 100_000 });
    expect(source.errors[0].message).toMatch(/aliases nest the value deeper than 64 levels/);
  });

  it("accepts the nesting real recipes use, quoted brackets included", () => {
    const text = 'steps:\n  - name: "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["\n    params: { a: { b: [1, [2, {c: 3}]] } }\n';
    expect(parseRecipeYaml(text).errors).toEqual([]);
  });

  it.each(["__proto__", "constructor", "prototype"])("rejects the key %s without polluting Object.prototype", (key) => {
    const source = parseRecipeYaml(`name: x\nsteps:\n  - params:\n      ${key}: { polluted: true }\n`);
    expect(source.value).toBeUndefined();
    expect(source.errors).toEqual([{ path: `steps[0].params.${key}`, line: 4, column: 7, message: `the key "${key}" is not allowed` }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("reports a duplicate key at the second occurrence", () => {
    const source = parseRecipeYaml("name: a\nsteps:\n  - name: x\n    name: y\n");
    expect(source.errors).toEqual([{ path: "steps[0].name", line: 4, column: 5, message: expect.stringMatching(/duplicate key/) }]);
  });

  it.each([
    ["an empty file", "", /not an empty document/],
    ["a comment only", "# nothing\n", /not an empty document/],
    ["a list", "- a\n- b\n", /not a list/],
    ["a scalar", "hello\n", /not a single value/],
    ["two documents", "a: 1\n---\nb: 2\n", /one YAML document/],
    ["an unresolved alias", "a: *missing\n", /alias/i],
    ["a complex key", "? [a, b]\n: 1\n", /keys must be plain text/],
    ["tabs as indentation", "a:\n\t- 1\n", /Tabs/],
  ])("returns an error, not an exception, for %s", (_case, text, message) => {
    const source = parseRecipeYaml(text);
    expect(source.value).toBeUndefined();
    expect(source.errors[0].message).toMatch(message);
    expect(source.errors[0].line).toBeGreaterThanOrEqual(1);
  });

  it("survives random garbage without throwing", () => {
    const alphabet = "ab:-[]{}&*!|>'\"#?,\n \t%@`";
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 300; n++) {
      const text = Array.from({ length: 80 }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect(() => parseRecipeYaml(text)).not.toThrow();
    }
  });
});

describe("formatPath", () => {
  it.each([
    [[], ""],
    [["steps", 2, "params", "position", "x"], "steps[2].params.position.x"],
    [["params", "my key"], 'params["my key"]'],
    [["variables", "a-b"], "variables.a-b"],
  ])("formats %j as %s", (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });
});
