/**
 * Pins the param form's reading of tool schemas and field text: vectors, colours, enums and
 * numbers get their editors, unknown shapes fall back to YAML text, and every field accepts a
 * placeholder without turning it into something else.
 */
import { describe, expect, it } from "vitest";
import { formatField, fromHex, fromYamlText, hasPlaceholder, numberProblem, parseNumberField, parseTextField, toHex, toYamlText } from "./field-values";
import { fieldsOf, humanize, keyOrder } from "./schema-form";

const lightSchema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1 },
    type: { type: "string", enum: ["Directional", "Point", "Spot"] },
    intensity: { type: "number", minimum: 0, maximum: 1000000 },
    color: { type: "object", kiln: "color", properties: { r: { type: "number" }, g: { type: "number" }, b: { type: "number" }, a: { type: "number" } } },
    position: { type: "object", kiln: "vector", properties: { x: { type: "number" }, y: { type: "number" }, z: { type: "number" } } },
    options: { type: "object", properties: { apply_modifiers: { type: "boolean", description: "Bake" } } },
    tags: { type: "array", items: { type: "string" } },
    width: { type: "integer", minimum: 16, maximum: 9007199254740991 },
  },
  required: ["name", "type"],
};

describe("fieldsOf", () => {
  it("maps schema properties to editors in schema order", () => {
    const fields = fieldsOf(lightSchema);
    expect(fields.map((f) => [f.key, f.kind])).toEqual([
      ["name", "string"], ["type", "enum"], ["intensity", "number"], ["color", "color"], ["position", "vector"], ["options", "object"], ["tags", "yaml"], ["width", "number"],
    ]);
    expect(fields[0].required).toBe(true);
    expect(fields[1].options).toEqual(["Directional", "Point", "Spot"]);
    expect(fields[2]).toMatchObject({ minimum: 0, maximum: 1000000, integer: false });
    expect(fields[7]).toMatchObject({ integer: true, minimum: 16 });
    expect(fields[7].maximum).toBeUndefined();
    expect(fields[4].components).toEqual(["x", "y", "z"]);
    expect(fields[5].fields?.[0]).toMatchObject({ key: "apply_modifiers", kind: "boolean", description: "Bake" });
    expect(keyOrder(lightSchema)[0]).toBe("name");
  });

  it("recognises vectors and colours by their keys without the hint", () => {
    const fields = fieldsOf({ properties: { v: { type: "object", properties: { x: {}, y: {}, z: {} } }, c: { type: "object", properties: { r: {}, g: {}, b: {} } } } });
    expect(fields.map((f) => f.kind)).toEqual(["vector", "color"]);
  });

  it("labels keys for people", () => {
    expect(humanize("spot_angle")).toBe("Spot angle");
  });
});

describe("field text", () => {
  it("reads numbers, keeps placeholders and odd text, and empties to removal", () => {
    expect(parseNumberField("12.5")).toBe(12.5);
    expect(parseNumberField("-3e2")).toBe(-300);
    expect(parseNumberField(" {{ size }} ")).toBe(" {{ size }} ");
    expect(parseNumberField("12px")).toBe("12px");
    expect(parseNumberField("0x10")).toBe("0x10");
    expect(parseNumberField("")).toBeUndefined();
    expect(parseTextField("", false)).toBeUndefined();
    expect(parseTextField("", true)).toBe("");
    expect(hasPlaceholder("a {{ b }} c")).toBe(true);
    expect(formatField(undefined)).toBe("");
  });

  it("explains number fields that are not numbers or out of range", () => {
    expect(numberProblem("{{ n }}", {})).toBeUndefined();
    expect(numberProblem("big", {})).toMatch(/placeholder/);
    expect(numberProblem(1.5, { integer: true })).toMatch(/whole/);
    expect(numberProblem(4, { minimum: 16 })).toMatch(/at least 16/);
  });

  it("round-trips free-form YAML and reports what does not parse", () => {
    expect(fromYamlText(toYamlText(["a", { b: 1 }])).value).toEqual(["a", { b: 1 }]);
    expect(fromYamlText("[unclosed").error).toBeTruthy();
    expect(fromYamlText("").value).toBeUndefined();
  });

  it("converts colours between 0..1 components and hex", () => {
    expect(toHex({ r: 1, g: 0.5, b: 0 })).toBe("#ff8000");
    expect(toHex({ r: "{{ r }}", g: 2, b: -1 })).toBe("#00ff00");
    expect(fromHex("#ff8000")).toEqual({ r: 1, g: 0.502, b: 0 });
  });
});
