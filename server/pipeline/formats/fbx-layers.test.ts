// Invariant: UV sets, vertex colours and material indices are written in the conventions Blender's
// FBX importer reads (V up, sRGB colours, ByPolygon material indices, Layer lists), and the
// reader takes them from any mapping FBX defines, keeps meshes indexed when every layer has one
// value per vertex, and drops (with a warning) layers whose indices or values are not there.
import { describe, expect, it } from "vitest";
import { child, stringProperty, type FbxNode, type FbxProperty } from "./fbx-binary";
import { numbers, readGeometry, setGeometry } from "./fbx-geometry";
import { linearToSrgb, srgbToLinear } from "./fbx-layers";

const node = (name: string, properties: FbxProperty[], children: FbxNode[] = []): FbxNode => ({ name, properties, children });
const s = stringProperty;
const doubles = (...v: number[]): FbxProperty => ({ type: "d", value: Float64Array.from(v) });
const ints = (...v: number[]): FbxProperty => ({ type: "i", value: Int32Array.from(v) });

/** A quad (0 1 2 3) and a triangle (1 4 2) with normals per vertex and the given layers. */
function quadAndTriangle(...layers: FbxNode[]): FbxNode {
  return node("Geometry", [], [
    node("Vertices", [doubles(0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0)]),
    node("PolygonVertexIndex", [ints(0, 1, 2, ~3, 1, 4, ~2)]),
    node("LayerElementNormal", [], [node("MappingInformationType", [s("ByVertice")]), node("ReferenceInformationType", [s("Direct")]), node("Normals", [doubles(...Array(5).fill([0, 0, 1]).flat())])]),
    ...layers,
  ]);
}
const uvLayer = (name: string, mapping: string, uv: number[], index?: number[]) =>
  node("LayerElementUV", [{ type: "I", value: 0 }], [
    node("Name", [s(name)]), node("MappingInformationType", [s(mapping)]), node("ReferenceInformationType", [s(index ? "IndexToDirect" : "Direct")]),
    node("UV", [doubles(...uv)]), ...(index ? [node("UVIndex", [ints(...index)])] : []),
  ]);

/** A placeholder geometry as the exporter writes it, for setGeometry. */
const placeholder = () => node("Geometry", [], [node("Vertices", [doubles(0)]), node("PolygonVertexIndex", [ints(~0)]), node("LayerElementNormal", []), node("LayerElementMaterial", []), node("Layer", [])]);
const mesh = {
  positions: Float32Array.of(0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0),
  normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1),
  indices: Uint32Array.of(0, 1, 2, 0, 2, 3),
  uvs: [Float32Array.of(0, 0, 1, 0, 1, 0.25, 0, 1), Float32Array.of(0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5)],
  colors: Float32Array.of(1, 0, 0, 1, 0.5, 0.5, 0.5, 0.5, 0, 0, 1, 1, 0.2, 0.2, 0.2, 0),
  groups: [{ start: 0, count: 3 }, { start: 3, count: 3 }],
};

describe("FBX layers", () => {
  it("writes UVs with V up, colours sRGB-encoded, material indices by polygon, and lists them in layers", () => {
    const g = placeholder();
    setGeometry(g, mesh, [1, 0]);
    const uv0 = g.children.find((c) => c.name === "LayerElementUV" && c.properties[0].value === 0)!;
    expect(Array.from(numbers(child(uv0, "UV"))!)).toEqual([0, 1, 1, 1, 1, 0.75, 0, 0]);
    expect(Array.from(numbers(child(uv0, "UVIndex"))!)).toEqual([0, 1, 2, 0, 2, 3]);
    expect(child(uv0, "Name")!.properties[0]).toEqual(s("UVMap"));
    const colors = numbers(child(child(g, "LayerElementColor"), "Colors"))!;
    expect(colors[4]).toBeCloseTo(0.7354, 4); // linear 0.5 in sRGB
    expect(colors[7]).toBe(0.5); // alpha stays linear
    expect(Array.from(numbers(child(child(g, "LayerElementMaterial"), "Materials"))!)).toEqual([1, 0]);
    const layers = g.children.filter((c) => c.name === "Layer").map((l) => l.children.filter((e) => e.name === "LayerElement").map((e) => [child(e, "Type")!.properties[0], child(e, "TypedIndex")!.properties[0].value]));
    expect(layers).toEqual([
      [[s("LayerElementNormal"), 0], [s("LayerElementMaterial"), 0], [s("LayerElementUV"), 0], [s("LayerElementColor"), 0]],
      [[s("LayerElementUV"), 1]],
    ]);
    const back = readGeometry(g, "Q");
    expect(back.warnings).toEqual([]);
    expect(back.mesh.uvs!.map((u) => Array.from(u))).toEqual(mesh.uvs.map((u) => Array.from(u)));
    back.mesh.colors!.forEach((c, i) => expect(c).toBeCloseTo(mesh.colors[i], 6));
    expect(back.mesh.groups).toEqual(mesh.groups);
    expect(back.materialSlots).toEqual([1, 0]);
    expect(back.uvSetNames).toEqual(["UVMap", "UVMap.001"]);
  });

  it("converts sRGB and linear both ways", () => {
    for (const v of [0, 0.001, 0.04, 0.2, 0.5, 1]) expect(srgbToLinear(linearToSrgb(v))).toBeCloseTo(v, 12);
  });

  it("reads per-corner UVs with a seam (vertex 1 has two) as one vertex per corner, V flipped", () => {
    const { mesh: m, warnings } = readGeometry(quadAndTriangle(uvLayer("UVMap", "ByPolygonVertex", [0, 0, 1, 0, 1, 1, 0, 1, 0.25, 0.25, 0.5, 0.5], [0, 1, 2, 3, 4, 5, 2])), "Q");
    expect(warnings).toEqual([]);
    expect(m.positions.length).toBe(27);
    expect(Array.from(m.uvs![0].subarray(0, 6))).toEqual([0, 1, 1, 1, 1, 0]);
    expect(Array.from(m.uvs![0].subarray(12, 16))).toEqual([0.25, 0.75, 0.5, 0.5]); // the triangle's corners on vertices 1 and 4
  });

  it("keeps the mesh indexed when per-corner UVs have one value per vertex (Kiln's own files)", () => {
    const { mesh: m } = readGeometry(quadAndTriangle(uvLayer("UVMap", "ByPolygonVertex", [0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5], [0, 1, 2, 3, 1, 4, 2])), "Q");
    expect(m.positions.length).toBe(15);
    expect(Array.from(m.uvs![0])).toEqual([0, 1, 1, 1, 1, 0, 0, 0, 0.5, 0.5]);
  });

  it.each([
    ["an index past the end of the UVs", uvLayer("A", "ByPolygonVertex", [0, 0], [0, 0, 0, 0, 0, 7, 0]), 'UV set "A" has no value for polygon vertex 5; dropped'],
    ["too few indices", uvLayer("B", "ByPolygonVertex", [0, 0], [0, 0, 0]), 'UV set "B" has no value for polygon vertex 3; dropped'],
    ["too few values", uvLayer("C", "ByVertice", [0, 0, 1, 1]), 'UV set "C" has no value for polygon vertex 2; dropped'],
    ["a non-finite value", uvLayer("D", "ByVertice", [0, 0, 1, NaN, 0, 0, 0, 0, 0, 0]), 'UV set "D" has non-finite UV; dropped'],
    ["a float index", node("LayerElementUV", [], [node("Name", [s("E")]), node("MappingInformationType", [s("ByPolygonVertex")]), node("ReferenceInformationType", [s("IndexToDirect")]), node("UV", [doubles(0, 0)]), node("UVIndex", [doubles(0, 0, 0, 0, 0, 0, 0)])]), 'UV set "E" is mapped IndexToDirect but has no int32 UVIndex; dropped'],
  ])("drops a UV set with %s", (_what, uv, warning) => {
    const { mesh: m, warnings } = readGeometry(quadAndTriangle(uv), "Q");
    expect(warnings).toEqual([`fbx: mesh "Q": ${warning}`]);
    expect(m.uvs).toBeUndefined();
  });

  it("keeps two UV sets and one colour layer, and says so about the rest", () => {
    const uv = (name: string) => uvLayer(name, "ByVertice", Array(10).fill(0));
    const color = node("LayerElementColor", [], [node("Name", [s("Col2")]), node("MappingInformationType", [s("AllSame")]), node("ReferenceInformationType", [s("Direct")]), node("Colors", [doubles(1, 1, 1, 1)])]);
    const { mesh: m, warnings } = readGeometry(quadAndTriangle(uv("a"), uv("b"), uv("c"), color, color), "Q");
    expect(warnings).toEqual(['fbx: mesh "Q": UV set "c" dropped (Kiln keeps 2)', 'fbx: mesh "Q": colour layer "Col2" dropped (Kiln keeps 1)']);
    expect(m.uvs).toHaveLength(2);
    expect(Array.from(m.colors!.subarray(0, 4))).toEqual([1, 1, 1, 1]);
  });

  it("reads material indices by polygon into groups, a missing index as no material", () => {
    const materials = (mapping: string, ...v: number[]) => node("LayerElementMaterial", [], [node("MappingInformationType", [s(mapping)]), node("Materials", [ints(...v)])]);
    expect(readGeometry(quadAndTriangle(materials("ByPolygon", 2, 0)), "Q")).toMatchObject({ mesh: { groups: [{ start: 0, count: 6 }, { start: 6, count: 3 }] }, materialSlots: [2, 0] });
    expect(readGeometry(quadAndTriangle(materials("ByPolygon", 1)), "Q")).toMatchObject({ mesh: { groups: [{ start: 0, count: 6 }, { start: 6, count: 3 }] }, materialSlots: [1, -1] });
    const same = readGeometry(quadAndTriangle(materials("AllSame", 3)), "Q");
    expect(same.mesh.groups).toBeUndefined();
    expect(same.materialSlots).toEqual([3]);
  });
});
