// Invariant: FBX geometry written by fbx-geometry.ts says what the exporter itself would have
// written for the same mesh, and the reader turns every normal mapping FBX defines, polygons of
// any size and geometric transforms into the same mesh FBXLoader sees, with warnings for layers
// it drops and errors for indices out of range.
import { describe, expect, it } from "vitest";
import { BufferGeometry, Float32BufferAttribute, Mesh, Scene, Uint32BufferAttribute, type Mesh as ThreeMesh } from "three";
import { FBXExporter } from "@comfyorg/fbx-exporter-three";
import { encodeFbx } from "./fbx";
import { child, readFbxBinary, stringProperty, writeFbxBinary, type FbxNode, type FbxProperty } from "./fbx-binary";
import { numbers, readGeometry, setGeometry } from "./fbx-geometry";
import { decodeFbx, loadFbx } from "./fbx-read";
import { fixtureScene, sphereMesh } from "../../../tests/fixtures/formats/scene";

const node = (name: string, properties: FbxProperty[], children: FbxNode[] = []): FbxNode => ({ name, properties, children });
const s = stringProperty;
const doubles = (...v: number[]): FbxProperty => ({ type: "d", value: Float64Array.from(v) });
const ints = (...v: number[]): FbxProperty => ({ type: "i", value: Int32Array.from(v) });

/** A quad (0 1 2 3) and a triangle (1 4 2) with the given normal layer. */
function quadAndTriangle(normalLayer?: FbxNode[]): FbxNode {
  return node("Geometry", [], [
    node("Vertices", [doubles(0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0)]),
    node("PolygonVertexIndex", [ints(0, 1, 2, ~3, 1, 4, ~2)]),
    ...(normalLayer ? [node("LayerElementNormal", [], normalLayer)] : []),
  ]);
}
const layer = (mapping: string, reference: string, normals: number[], index?: number[]) => [
  node("MappingInformationType", [s(mapping)]), node("ReferenceInformationType", [s(reference)]),
  node("Normals", [doubles(...normals)]), ...(index ? [node("NormalsIndex", [ints(...index)])] : []),
];

describe("FBX geometry", () => {
  it("writes the vertices, polygons and normals the exporter writes for the same mesh", async () => {
    const mesh = sphereMesh("Ball");
    const g = new BufferGeometry();
    g.setAttribute("position", new Float32BufferAttribute(mesh.positions, 3));
    g.setAttribute("normal", new Float32BufferAttribute(mesh.normals, 3));
    g.setIndex(new Uint32BufferAttribute(mesh.indices, 1));
    const scene = new Scene().add(new Mesh(g));
    const options = { version: 7400, axisUp: "Y", axisForward: "-Z", unitScale: 100, embedTextures: false } as const;
    const theirs = readFbxBinary(new FBXExporter().parseSync(scene, options)).nodes.find((n) => n.name === "Objects")!.children.find((n) => n.name === "Geometry")!;
    const ours = structuredClone(theirs);
    setGeometry(ours, mesh);
    expect(numbers(child(ours, "Vertices"))).toEqual(numbers(child(theirs, "Vertices")));
    expect(numbers(child(ours, "PolygonVertexIndex"))).toEqual(numbers(child(theirs, "PolygonVertexIndex")));
    // Theirs: one normal per corner (ByPolygonVertex, IndexToDirect); ours: one per vertex.
    const theirNormals = numbers(child(child(theirs, "LayerElementNormal"), "Normals"))!;
    const ourNormals = numbers(child(child(ours, "LayerElementNormal"), "Normals"))!;
    mesh.indices.forEach((v, corner) => expect([0, 1, 2].map((c) => ourNormals[v * 3 + c])).toEqual([0, 1, 2].map((c) => theirNormals[corner * 3 + c])));
    expect(readGeometry(ours, "Ball")).toEqual({ mesh: { positions: mesh.positions, normals: mesh.normals, indices: mesh.indices }, materialSlots: [0], uvSetNames: [], controlPoints: mesh.positions.length / 3, warnings: [] });
  });

  it("triangulates polygons as fans and reads per-vertex normals into an indexed mesh", () => {
    const normals = [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0];
    const { mesh, warnings } = readGeometry(quadAndTriangle(layer("ByVertice", "Direct", normals)), "Q");
    expect(warnings).toEqual([]);
    expect(Array.from(mesh.indices)).toEqual([0, 1, 2, 0, 2, 3, 1, 4, 2]);
    expect(Array.from(mesh.normals)).toEqual(normals);
    const indexed = readGeometry(quadAndTriangle(layer("ByVertice", "IndexToDirect", [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1])), "Q").mesh;
    expect(Array.from(indexed.normals.subarray(9))).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it.each([
    ["ByPolygonVertex", "Direct", [...Array(7).keys()].flatMap((k) => [k, 0, 0]), undefined, [0, 1, 2, 0, 2, 3, 4, 5, 6]],
    ["ByPolygonVertex", "IndexToDirect", [0, 0, 0, 1, 0, 0], [0, 0, 1, 1, 0, 1, 0], [0, 0, 1, 0, 1, 1, 0, 1, 0]],
    ["ByPolygon", "Direct", [7, 0, 0, 8, 0, 0], undefined, [7, 7, 7, 7, 7, 7, 8, 8, 8]],
    ["AllSame", "Direct", [5, 0, 0], undefined, [5, 5, 5, 5, 5, 5, 5, 5, 5]],
  ])("reads %s/%s normals as one vertex per corner", (mapping, reference, normals, index, expectedX) => {
    const { mesh } = readGeometry(quadAndTriangle(layer(mapping, reference, normals, index)), "Q");
    expect(mesh.positions.length).toBe(27);
    expect(Array.from({ length: 9 }, (_, c) => mesh.normals[c * 3])).toEqual(expectedX);
    expect(Array.from(mesh.positions.subarray(0, 9))).toEqual([0, 0, 0, 1, 0, 0, 1, 1, 0]);
  });

  it("warns about what it drops and computes normals when there are none", () => {
    const g = quadAndTriangle();
    g.children.push(node("LayerElementUV", []), node("LayerElementUV", []), node("LayerElementColor", []));
    g.children[1] = node("PolygonVertexIndex", [ints(0, 1, 2, ~3, 1, ~4)]);
    const { mesh, warnings } = readGeometry(g, "Q");
    expect(warnings).toEqual([
      'fbx: mesh "Q": polygons with fewer than 3 corners dropped', 'fbx: mesh "Q": had no normals; smooth normals computed',
      'fbx: mesh "Q": UV set "" has no UV array; dropped', 'fbx: mesh "Q": UV set "" has no UV array; dropped', 'fbx: mesh "Q": colour layer "" has no Colors array; dropped',
    ]);
    expect(mesh.indices.length).toBe(6);
    expect(Array.from(mesh.normals.subarray(0, 3))).toEqual([0, 0, 1]);
  });

  it("refuses vertex indices outside the vertex list, float index arrays and non-finite vertices", () => {
    const g = quadAndTriangle(layer("ByVertice", "Direct", new Array(15).fill(0)));
    g.children[1] = node("PolygonVertexIndex", [ints(0, 1, ~9)]);
    expect(() => readGeometry(g, "Q")).toThrow('fbx: geometry "Q": polygon vertex 2 refers to vertex 9 of 5');
    g.children[1] = node("PolygonVertexIndex", [doubles(0, 1, -2147483649)]);
    expect(() => readGeometry(g, "Q")).toThrow("PolygonVertexIndex is not an int32 array");
    g.children[1] = node("PolygonVertexIndex", [ints(0, 1, ~2)]);
    g.children[0] = node("Vertices", [doubles(0, 0, 0, 1, NaN, 0, 1, 1, 0)]);
    expect(() => readGeometry(g, "Q")).toThrow("vertex coordinates are not finite");
  });

  it.each([
    ["an index out of range", layer("ByVertice", "IndexToDirect", [0, 0, 1], [0, 0, 0, 0, 5]), "normal of vertex 4 missing"],
    ["a float index", [...layer("ByPolygonVertex", "IndexToDirect", [0, 0, 1]), node("NormalsIndex", [doubles(0, 0, 0, 0, 0, 0, 0)])], "normal layer is mapped IndexToDirect but has no int32 NormalsIndex"],
    ["an edge mapping", layer("ByEdge", "Direct", [0, 0, 1]), 'normal layer is mapped "ByEdge", which Kiln does not read'],
  ])("computes normals instead when the layer has %s", (_what, normalLayer, why) => {
    const { mesh, warnings } = readGeometry(quadAndTriangle(normalLayer), "Q");
    expect(warnings).toEqual([`fbx: mesh "Q": ${why}; smooth normals computed`]);
    expect(Array.from(mesh.normals.subarray(0, 3))).toEqual([0, 0, 1]);
  });

  it("triangulates concave polygons inside their outline, keeping their winding", () => {
    /** Total area of the triangles, and the same counting clockwise ones negative. */
    const areas = (mesh: { positions: Float32Array; indices: Uint32Array }) => {
      let total = 0, signed = 0;
      for (let t = 0; t < mesh.indices.length; t += 3) {
        const [a, b, c] = [0, 1, 2].map((k) => mesh.indices[t + k] * 3);
        const p = mesh.positions;
        const area = ((p[b] - p[a]) * (p[c + 1] - p[a + 1]) - (p[b + 1] - p[a + 1]) * (p[c] - p[a])) / 2;
        total += Math.abs(area);
        signed += area;
      }
      return { total, signed };
    };
    const polygon = (xy: number[]) => node("Geometry", [], [
      node("Vertices", [doubles(...xy.flatMap((v, k) => (k % 2 ? [v, 0] : [v])))]),
      node("PolygonVertexIndex", [ints(...xy.filter((_, k) => k % 2 === 0).map((_, k, all) => (k === all.length - 1 ? ~k : k)))]),
      node("LayerElementNormal", [], layer("AllSame", "Direct", [0, 0, 1])),
    ]);
    // A U of area 7 (3 × 3 minus its 1 × 2 notch), counter-clockwise: a fan from corner 0 would
    // also cover the notch (total 11).
    const u = readGeometry(polygon([0, 0, 3, 0, 3, 3, 2, 3, 2, 1, 1, 1, 1, 3, 0, 3]), "U").mesh;
    expect(u.indices.length).toBe(18);
    expect(areas(u)).toEqual({ total: expect.closeTo(7, 6), signed: expect.closeTo(7, 6) });
    // A dart (concave quad) of area 1.5 whose reflex corner is the last: a fan from corner 0
    // would give triangles of 3 and -1.5.
    const dart = readGeometry(polygon([2, -1, 1, 2, 0, -1, 1, 0.5]), "Dart").mesh;
    expect(dart.indices.length).toBe(6);
    expect(areas(dart)).toEqual({ total: expect.closeTo(1.5, 6), signed: expect.closeTo(1.5, 6) });
  });

  it("bakes a model's geometric transform into its mesh, as FBXLoader does", async () => {
    const src = fixtureScene();
    const doc = readFbxBinary((await encodeFbx(src, "g")).files[0].bytes);
    const model = doc.nodes.find((n) => n.name === "Objects")!.children.find((n) => n.name === "Model" && new TextDecoder().decode((n.properties[1] as { value: Uint8Array }).value).startsWith("Ball"))!;
    const d = (v: number): FbxProperty => ({ type: "D", value: v });
    child(model, "Properties70")!.children.push(
      node("P", [s("GeometricTranslation"), s("Vector3D"), s("Vector"), s(""), d(0), d(2), d(0)]),
      node("P", [s("GeometricScaling"), s("Vector3D"), s("Vector"), s(""), d(3), d(3), d(3)]),
    );
    const bytes = writeFbxBinary(doc);
    const ball = (await decodeFbx(new Map([["g.fbx", bytes]]), "g.fbx")).scene.meshes.find((m) => m.name === "Ball Mesh")!;
    const reference = (loadFbx(bytes, []).getObjectByName("Ball") as ThreeMesh).geometry.getAttribute("position");
    const original = src.meshes.find((m) => m.name === "Ball Mesh")!;
    // FBXLoader un-indexes; compare each of its corners with ours.
    for (let corner = 0; corner < reference.count; corner++) {
      const v = ball.indices[corner];
      expect(ball.positions[v * 3 + 1]).toBeCloseTo(reference.getY(corner), 5);
      expect(ball.positions[v * 3 + 1]).toBeCloseTo(original.positions[original.indices[corner] * 3 + 1] * 3 + 2, 5);
    }
  });
});
