// Invariant: custom properties of nodes, meshes and materials travel in FBX as user properties
// typed as Blender writes and reads them (KString, int, double, bool), anything else as JSON text
// Kiln reads back; unreadable values are dropped with a warning.
import { describe, expect, it } from "vitest";
import { childrenNamed, readFbxBinary, stringProperty, text, writeFbxBinary, type FbxNode } from "./fbx-binary";
import { decode, encode } from "./index";
import { readUserProperties } from "./fbx-properties";
import type { InterchangeScene } from "./interchange";

const extras = { label: "crate", count: 3, weight: 2.5, big: 2 ** 40, solid: true, tags: ["a", "b"], nested: { x: 1 }, none: null };
const scene = (): InterchangeScene => ({
  nodes: [{ name: "Crate", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0, material: 0, extras }],
  meshes: [{ name: "Box", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2), extras: { lod: 0 } }],
  materials: [{ name: "Wood", color: [1, 1, 1, 1], metallic: 0, roughness: 1, extras: { grain: "oak" } }],
  animations: [],
});

describe("FBX custom properties", () => {
  it("round-trips node, mesh and material custom properties, typed as Blender reads them", async () => {
    const enc = await encode("fbx", scene(), "c");
    expect(enc.warnings).toEqual([]);
    const doc = readFbxBinary(enc.files[0].bytes);
    const model = childrenNamed(doc.nodes.find((n) => n.name === "Objects"), "Model")[0];
    const user = childrenNamed(childrenNamed(model, "Properties70")[0], "P").filter((p) => text(p.properties[3]) === "U");
    expect(user.map((p) => [text(p.properties[0]), text(p.properties[1]), p.properties[4].type])).toEqual([
      ["label", "KString", "S"], ["count", "int", "I"], ["weight", "double", "D"], ["big", "double", "D"], ["solid", "bool", "I"], ["tags", "KString", "S"], ["nested", "KString", "S"], ["none", "KString", "S"],
    ]);
    expect(text(model.properties[1])).toBe("Crate\0\u0001Model"); // the writer's name tag is gone
    const dec = await decode("fbx", new Map([["c.fbx", enc.files[0].bytes]]), "c.fbx");
    expect(dec.warnings).toEqual([]);
    expect(dec.scene.nodes[0].extras).toEqual(extras);
    expect(dec.scene.meshes[0].extras).toEqual({ lod: 0 });
    expect(dec.scene.materials[0].extras).toEqual({ grain: "oak" });
  });

  it("drops values it cannot read, with a warning", () => {
    const p = (...props: FbxNode["properties"]): FbxNode => ({ name: "P", properties: props, children: [] });
    const s = stringProperty;
    const model: FbxNode = { name: "Model", properties: [], children: [{ name: "Properties70", properties: [], children: [
      p(s("nan"), s("double"), s("Number"), s("U"), { type: "D", value: NaN }),
      p(s("json"), s("KString"), s("KilnJSON"), s("U"), s("{oops")),
      p(s("colour"), s("ColorRGB"), s("Color"), s("AU"), { type: "D", value: 1 }, { type: "D", value: 0.5 }, { type: "D", value: 0 }),
      p(s("Lcl Translation"), s("Lcl Translation"), s(""), s("A"), { type: "D", value: 1 }),
    ] }] };
    const warnings: string[] = [];
    expect(readUserProperties(model, 'node "N"', (w) => warnings.push(w))).toEqual({ colour: [1, 0.5, 0] });
    expect(warnings).toEqual(['fbx: custom property "nan" of node "N" dropped: its value is not readable', 'fbx: custom property "json" of node "N" dropped: its value is not readable']);
  });
});
