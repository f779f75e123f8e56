import { describe, expect, it } from "vitest";
import { fieldRows, formatValue, properties, restorePhrases } from "./diff-words";

describe("diff words", () => {
  it("formats vectors, colours and keyframes compactly, other objects as JSON", () => {
    expect(formatValue({ x: 1.5, y: 0, z: -2.25 })).toBe("(1.5, 0, -2.25)");
    expect(formatValue({ r: 1, g: 0.5, b: 0, a: 1 })).toBe("rgba(1, 0.5, 0, 1)");
    expect(formatValue([{ time: 0 }, { time: 1 }])).toBe("2 keys at 0, 1 s");
    expect(formatValue({ type: "Point" })).toBe('{"type":"Point"}');
    expect(formatValue(null)).toBe("—");
  });

  it("splits a changed object field into the sub-fields that changed, but keeps vectors whole", () => {
    const rows = fieldRows({
      light: { old: { type: "Directional", intensity: 1.2, color: { r: 1, g: 1, b: 1, a: 1 } }, new: { type: "Directional", intensity: 3, color: { r: 1, g: 0.5, b: 1, a: 1 } } },
      position: { old: { x: 0, y: 0, z: 0 }, new: { x: 1, y: 0, z: 0 } },
    });
    expect(rows).toEqual([
      { field: "light.intensity", old: 1.2, new: 3 },
      { field: "light.color", old: { r: 1, g: 1, b: 1, a: 1 }, new: { r: 1, g: 0.5, b: 1, a: 1 } },
      { field: "position", old: { x: 0, y: 0, z: 0 }, new: { x: 1, y: 0, z: 0 } },
    ]);
  });

  it("lists an added object's properties without its name, scene and kind", () => {
    expect(properties({ name: "Ball", scene: "Yard", kind: "mesh", type: "Sphere", position: { x: 2, y: 0.5, z: 0 }, material: null, light: { type: "Point", intensity: 2 } }))
      .toEqual([["type", "Sphere"], ["position", "(2, 0.5, 0)"], ["light.type", "Point"], ["light.intensity", "2"]]);
  });

  it("says what a restore does to an app", () => {
    const empty = { added: [], removed: [], changed: [] };
    expect(restorePhrases({
      objects: { added: [{ name: "Old" }], removed: [{ name: "Ball" }, { name: "Box" }], changed: [{ name: "Sun", fields: { light: { old: { intensity: 3 }, new: { intensity: 1 } } } }] },
      materials: empty, scenes: empty, active_scene: { old: "Level", new: "Main" },
    })).toEqual([
      "deletes 2 objects (Ball, Box)", "brings back 1 object (Old)", "changes 1 object (Sun: light.intensity)", "makes Main the active scene (now Level)",
    ]);
  });
});
