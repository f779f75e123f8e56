// Invariant: a scene written as USDA and read back is the same scene: original names (prim names
// are sanitised, customData keeps the originals), hierarchy, world transforms, geometry,
// UsdPreviewSurface materials, lights, cameras and time-sampled TRS keys, with no warnings; and
// three's USDLoader, an independent reader, sees the same meshes, vertex counts and placement.
import { describe, expect, it } from "vitest";
import { USDLoader } from "three/examples/jsm/loaders/USDLoader.js";
import { Box3, type Mesh } from "three";
import { decodeUsd } from "./usd-read";
import { encodeUsd, usdIdentifier } from "./usd";
import { parseUsda } from "./usda-parse";
import { worldMatrices, type InterchangeScene } from "./interchange";
import { axisAngle, fixtureScene } from "../../../tests/fixtures/formats/scene";
import { expectRoundTrip } from "../../../tests/fixtures/formats/compare";

const all = { hierarchy: true, lights: true, cameras: true, animations: true, pbr: true };
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const decodeText = (usda: string) => decodeUsd(new Map([["s.usda", new TextEncoder().encode(usda)]]), "s.usda");

describe("USDA format", () => {
  it("round-trips the fixture scene with no warnings", async () => {
    const src = fixtureScene();
    const enc = await encodeUsd(src, "fixture");
    expect(enc.files.map((f) => f.name)).toEqual(["fixture.usda"]);
    expect(enc.warnings).toEqual([]);
    const usda = text(enc.files[0].bytes);
    expect(usda).toMatch(/^#usda 1\.0\n\(\n[^)]*upAxis = "Y"[^)]*\)/);
    expect(usda).toContain("metersPerUnit = 1");
    const dec = await decodeUsd(new Map([["fixture.usda", enc.files[0].bytes]]), "fixture.usda");
    expect(dec.warnings).toEqual([]);
    expectRoundTrip(src, dec.scene, all);
    expect(dec.scene.nodes.map((n) => n.name)).toEqual(src.nodes.map((n) => n.name));
  });

  it("is read by three's USDLoader with the same meshes, vertex counts and world bounds", async () => {
    const src = fixtureScene();
    const usda = text((await encodeUsd(src, "fixture")).files[0].bytes);
    const group = new USDLoader().parse(usda);
    group.updateMatrixWorld(true);
    const meshes: Mesh[] = [];
    group.traverse((o) => (o as Mesh).isMesh && meshes.push(o as Mesh));
    // USDLoader expands indexed meshes to one vertex per triangle corner.
    expect(meshes.map((m) => [m.name, m.geometry.getAttribute("position").count])).toEqual([
      ["Cube_Mesh", 12 * 3],
      ["Ball_Mesh", 80 * 3],
    ]);
    const world = worldMatrices(src);
    const cube = new Box3().setFromObject(meshes[0]);
    const expected = new Box3().setFromArray(src.meshes[0].positions).applyMatrix4(world[1]);
    expect(cube.min.distanceTo(expected.min) + cube.max.distanceTo(expected.max)).toBeLessThan(1e-4);
    expect(group.animations[0].tracks.map((t) => t.name).sort()).toEqual(["Child_Cube.position", "Child_Cube.quaternion"]);
  });

  it("keeps names that are not identifiers, clashing names and directional/spot lights", async () => {
    const src: InterchangeScene = {
      nodes: [
        { name: "1 weird/name", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], light: { type: "spot", color: [1, 0, 0], intensity: 5, spotAngleDeg: 30 } },
        { name: "1_weird_name", parent: null, translation: [1, 0, 0], rotation: axisAngle([1, 0, 0], -45), scale: [1, 1, 1], light: { type: "directional", color: [0, 1, 0], intensity: 2 } },
        { name: "Materials", parent: null, translation: [0, 2, 0], rotation: [0, 0, 0, 1], scale: [2, 1, 1] },
        { name: 'quote " and \\ and\nnewline', parent: 2, translation: [0, 0, 1], rotation: [0, 0, 0, 1], scale: [1, 1, 1] },
      ],
      meshes: [],
      materials: [],
      animations: [],
    };
    const enc = await encodeUsd(src, "names");
    expect(enc.warnings).toEqual([]);
    const dec = await decodeUsd(new Map([["n.usda", enc.files[0].bytes]]), "n.usda");
    expect(dec.warnings).toEqual([]);
    expectRoundTrip(src, dec.scene, all);
    expect(dec.scene.nodes.map((n) => n.light?.spotAngleDeg)).toEqual([30, undefined, undefined, undefined]);
    expect(usdIdentifier("1 weird/name")).toBe("_1_weird_name");
  });

  it("reads common foreign layouts (centimetres, Z up, faceVarying normals, quads, rotateXYZ) where USDLoader puts them", async () => {
    const usda = `#usda 1.0
(
    metersPerUnit = 0.01
    upAxis = "Z"
)
def Xform "Plane"
{
    float3 xformOp:rotateXYZ = (30, 40, 90)
    double3 xformOp:translate = (100, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
    def Mesh "Plane"
    {
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]
        point3f[] points = [(-100, -100, 0), (100, -100, 0), (100, 100, 0), (-100, 100, 0)]
        normal3f[] normals = [(0, 0, 1), (0, 0, 1), (0, 0, 1), (0, 0, 1)] (
            interpolation = "faceVarying"
        )
        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (
            interpolation = "faceVarying"
        )
        uniform token subdivisionScheme = "none"
    }
}
`;
    const dec = await decodeText(usda);
    expect(dec.warnings).toEqual(['usd: mesh "Plane": polygons triangulated as fans']);
    // faceVarying UVs are read per corner, V flipped to glTF's top-left origin.
    expect(Array.from(dec.scene.meshes[0].uvs![0])).toEqual([0, 1, 1, 1, 1, 0, 0, 0]);
    const [node] = dec.scene.nodes;
    // 1 m along file +X stays +X after the Z-up → Y-up turn.
    expect(node.translation.map((v) => +v.toFixed(9))).toEqual([1, 0, 0]);
    const mesh = dec.scene.meshes[node.mesh!];
    expect(mesh.indices.length / 3).toBe(2);
    const ours = new Box3().setFromArray(mesh.positions).applyMatrix4(worldMatrices(dec.scene)[0]);
    const group = new USDLoader().parse(usda);
    group.updateMatrixWorld(true);
    const theirs = new Box3().setFromObject(group);
    expect(ours.min.distanceTo(theirs.min) + ours.max.distanceTo(theirs.max)).toBeLessThan(1e-5);
  });

  it("parses metadata, dictionaries, relationships, connections and time samples", () => {
    const layer = parseUsda(`#usda 1.0
( doc = "x" )
def "A" ( customData = { string kilnName = "a\\"b"  dictionary nested = { int n = 1 } } )
{
    custom uniform token t = "tok"
    rel r = [</A>, </B>]
    float3 c.connect = </A.outputs:out>
    asset inputs:file = @./tex ture.png@
    float3 v.timeSamples = { 0: (1, 2, 3), 2.5: (4, 5, 6) }
}
`);
    const a = layer.prims[0];
    expect(a.metadata.customData).toEqual({ kilnName: 'a"b', nested: { n: 1 } });
    expect(a.properties.get("t")?.value).toBe("tok");
    expect(a.properties.get("r")?.value).toEqual([{ path: "/A" }, { path: "/B" }]);
    expect(a.properties.get("c")?.connect).toEqual({ path: "/A.outputs:out" });
    expect(a.properties.get("inputs:file")?.value).toBe("./tex ture.png");
    expect([...a.properties.get("v")!.timeSamples!]).toEqual([[0, [1, 2, 3]], [2.5, [4, 5, 6]]]);
  });

  it("reads string escapes as USD does: \\x and octal bytes as UTF-8, triple quotes over lines", () => {
    const layer = parseUsda(`#usda 1.0
( doc = """two
lines "quoted" inside""" )
def "A" ( customData = { string a = "caf\\xc3\\xa9" string b = "\\303\\251t\\303\\251" string c = 'tab\\there\\x07\\0' string d = "bad \\xff end" } )
{
}
`);
    expect(layer.metadata.doc).toBe('two\nlines "quoted" inside');
    expect(layer.prims[0].metadata.customData).toEqual({ a: "café", b: "été", c: "tab\there\x07\0", d: "bad \ufffd end" });
    expect(() => parseUsda('#usda 1.0\ndef "A" ( customData = { string a = "\\xzz" } )\n{\n}\n')).toThrow(/bad \\x escape in a string at line 2/);
    // Cut short or misquoted: located parse errors, never a TypeError or a misread name.
    expect(() => parseUsda("#usda 1.0\ndef Xform")).toThrow(/expected a quoted string at line 2/);
    expect(() => parseUsda("#usda 1.0\ndef Xform xxx { } xxx {}")).toThrow(/expected a quoted string at line 2/);
    expect(() => parseUsda('#usda 1.0\n( doc = """never closed\n\n\n')).toThrow(/unterminated string at line 2/);
    // "" then a quote, with no closing triple quote anywhere: an empty string, as USD reads it.
    expect(parseUsda('#usda 1.0\ndef "A" ( customData = { string e = "" string f = "x" } )\n{\n}\n').prims[0].metadata.customData).toEqual({ e: "", f: "x" });
  });
});
