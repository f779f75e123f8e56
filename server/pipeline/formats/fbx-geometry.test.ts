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
    expect(readGeometry(ours, "Ball")).toEqual({ mesh: { positions: mesh.positions, normals: mesh.normals, indices: mesh.indices }, warnings: [] });
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
      'fbx: mesh "Q": attribute uv dropped', 'fbx: mesh "Q": attribute uv1 dropped', 'fbx: mesh "Q": attribute color dropped',
      'fbx: mesh "Q": polygons with fewer than 3 corners dropped', 'fbx: mesh "Q": had no normals; smooth normals computed',
    ]);
    expect(mesh.indices.length).toBe(6);
    expect(Array.from(mesh.normals.subarray(0, 3))).toEqual([0, 0, 1]);
  });

  it("refuses indices outside the arrays", () => {
    const g = quadAndTriangle(layer("ByVertice", "Direct", [0, 0, 1]));
    expect(() => readGeometry(g, "Q")).toThrow('fbx: geometry "Q": normal 1 of 1 referenced');
    g.children[1] = node("PolygonVertexIndex", [ints(0, 1, ~9)]);
    expect(() => readGeometry(g, "Q")).toThrow('fbx: geometry "Q": polygon vertex 2 refers to vertex 9 of 5');
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
