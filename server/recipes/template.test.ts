// Invariant: a value that is exactly one placeholder keeps the referenced value's type; inside
// longer text values interpolate as text (objects as JSON); undefined variables are errors.
import { describe, expect, it } from "vitest";
import { TemplateError, compileParams, parseTemplate, readPath } from "./template";

const vars: Record<string, string | number | boolean> = { size: 100, ratio: 1.5, on: true, title: "Hello", zero: 0 };
const resolveVar = (name: string) => (Object.hasOwn(vars, name) ? vars[name] : undefined);
const render = (params: Record<string, unknown>, results: Record<string, unknown> = {}) =>
  compileParams(params, resolveVar).render((ref) => readPath(results[ref.id], ref.path));

describe("compileParams", () => {
  it.each([
    ["{{ size }}", 100],
    ["{{size}}", 100],
    ["{{   ratio   }}", 1.5],
    ["{{ on }}", true],
    ["{{ zero }}", 0],
    ["{{ vars.size }}", 100],
    ["{{ title }}", "Hello"],
  ])("gives %s its variable's type", (template, expected) => {
    expect(render({ value: template }).value).toStrictEqual(expected);
  });

  it.each([
    ["Cube {{ size }}", "Cube 100"],
    ["{{ title }}, {{title}}!", "Hello, Hello!"],
    ["{{ size }}x{{ size }}", "100x100"],
    ["on={{ on }}", "on=true"],
    ["no placeholders", "no placeholders"],
  ])("interpolates %s as text", (template, expected) => {
    expect(render({ value: template }).value).toBe(expected);
  });

  it("walks nested mappings and lists", () => {
    const params = { scale: { x: "{{ size }}", y: 1, z: "{{ size }}" }, tags: ["{{ title }}", "t-{{ size }}"] };
    expect(render(params)).toEqual({ scale: { x: 100, y: 1, z: 100 }, tags: ["Hello", "t-100"] });
  });

  it("keeps a step result's type when exact and writes objects as JSON inside text", () => {
    const results = { make: { id: 7, pos: { x: 1 }, list: ["a", "b"] } };
    const params = { id: "{{ steps.make.result.id }}", pos: "{{ steps.make.result.pos }}", label: "at {{ steps.make.result.pos }}", first: "{{ steps.make.result.list.0 }}" };
    expect(render(params, results)).toEqual({ id: 7, pos: { x: 1 }, label: 'at {"x":1}', first: "a" });
  });

  it("renders static params once and reports them as not dynamic", () => {
    const compiled = compileParams({ name: "{{ title }}" }, resolveVar);
    expect(compiled.dynamic).toBe(false);
    expect(compiled.render(() => undefined)).toBe(compiled.render(() => undefined));
    expect(compileParams({ id: "{{ steps.a.result.id }}" }, resolveVar).dynamic).toBe(true);
  });

  it("records undefined variables as errors with their path instead of an empty string", () => {
    const compiled = compileParams({ scale: { x: "{{ missing }}" }, name: "a {{ other }}" }, resolveVar);
    expect(compiled.errors).toEqual([
      { path: ["scale", "x"], message: 'undefined variable "missing" in "{{ missing }}"' },
      { path: ["name"], message: 'undefined variable "other" in "a {{ other }}"' },
    ]);
  });

  it("lists every reference with its path and whether it is exact", () => {
    const compiled = compileParams({ a: "{{ size }}", b: { c: "x {{ steps.s.result.id }}" } }, resolveVar);
    expect(compiled.refs).toEqual([
      { ref: { kind: "var", name: "size" }, path: ["a"], exact: true },
      { ref: { kind: "step", id: "s", field: "result", path: ["id"] }, path: ["b", "c"], exact: false },
    ]);
  });
});

describe("parseTemplate", () => {
  it.each(["{{ }}", "{{ a b }}", "{{ steps.x }}", "{{ steps.x.status.y }}", "{{ a.b }}", "open {{ size", "{{ steps }}"])(
    "rejects the malformed placeholder %s",
    (text) => {
      expect(() => parseTemplate(text)).toThrow(TemplateError);
    },
  );
});

describe("readPath", () => {
  it("follows own properties and array indexes only", () => {
    expect(readPath({ a: [{ b: 2 }] }, ["a", "0", "b"])).toBe(2);
    expect(readPath({ a: 1 }, ["constructor"])).toBeUndefined();
    expect(readPath({ a: 1 }, ["__proto__"])).toBeUndefined();
    expect(readPath({ a: null }, ["a", "b"])).toBeUndefined();
  });
});

describe("compileParams with code-built params", () => {
  it("keeps a __proto__ key as data instead of setting a prototype", () => {
    const params = JSON.parse('{"__proto__": {"polluted": true}, "name": "x"}') as Record<string, unknown>;
    const rendered = compileParams(params, resolveVar).render(() => undefined);
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
