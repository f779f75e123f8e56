// Invariant: custom properties of nodes, meshes, materials and joints travel through USDA as
// customData.userProperties, typed as USD dictionary values, and come back equal as JSON values
// (what USD has no type for rides as kilnJson text); hostile nesting and size are refused by name.
import { describe, expect, it } from "vitest";
import { decode, encode, LIMITS, LimitError } from "./index";
import { decodeGltf, encodeGltf } from "./gltf";
import type { InterchangeExtras, InterchangeScene } from "./interchange";
import { dictType, parseUsda, type UsdDict } from "./usda-parse";

const tricky = 'quote " backslash \\ newline \n tab \t nul \0 é 字 😀';
const extras: InterchangeExtras = {
  label: "crate",
  count: 3,
  negative: -7,
  weight: 2.5,
  tiny: 1e-300,
  big: 2 ** 60,
  unsafe: 9007199254740993, // not a safe integer: a double
  solid: true,
  off: false,
  numbers: [1, 2.5, -3e20],
  strings: ["a", tricky, ""],
  flags: [true, false, true],
  nested: { x: 1, deeper: { list: ["y"], empty: {} } },
  none: null,
  emptyList: [],
  mixed: [1, "two", false, null],
  objects: [{ a: 1 }, { b: [2] }],
  lists: [[1, 2], ["x"]],
  [tricky]: tricky,
  "with space": 1,
  "1digit": "k",
  def: "keyword",
  kilnJson: "not a wrapper", // with another key beside it, an ordinary string
  wrapperLike: { kilnJson: "[1]" }, // alone, it would read as the wrapper: written as JSON text
  lone: "\ud800 lone surrogate",
};
const props = (v: unknown) => JSON.parse(JSON.stringify(v)) as InterchangeExtras;
/** The properties with an own "__proto__" key, as JSON.parse makes from a glTF file's JSON. */
const crate = () => JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(extras).slice(1)}`) as InterchangeExtras;

const scene = (): InterchangeScene => ({
  nodes: [
    { name: "Crate", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0, material: 0, extras: crate() },
    { name: "Empty", parent: 0, translation: [1, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], extras: props({ kilnJson: "top-level wrapper look-alike" }) },
    { name: "Lamp", parent: null, translation: [0, 2, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], light: { type: "point", color: [1, 1, 1], intensity: 1 }, extras: props({ watts: 60 }) },
  ],
  meshes: [{ name: "Box", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2), extras: props({ lod: 0, targetNames: ["Top"], meta: { source: tricky, "\udc00": "a lone surrogate key: this object rides as JSON text" } }) }],
  materials: [{ name: "Wood", color: [1, 1, 1, 1], metallic: 0, roughness: 1, extras: props({ grain: "oak", tags: ["a", "b"], none: null }) }],
  animations: [],
});

const usda = async (s: InterchangeScene) => {
  const enc = await encode("usd", s, "c");
  return { enc, text: new TextDecoder().decode(enc.files[0].bytes) };
};
const read = (text: string) => decode("usd", new Map([["c.usda", new TextEncoder().encode(text)]]), "c.usda");
const json = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("USDA custom properties", () => {
  it("round-trips glTF → Kiln → USDA → Kiln properties of nodes, meshes and materials, equal as JSON", async () => {
    const glb = await encodeGltf(scene(), "c");
    const src = (await decodeGltf(new Map([["c.glb", glb.files[0].bytes]]), "c.glb")).scene;
    expect(src.nodes[0].extras).toEqual(crate());
    expect(Object.hasOwn(src.nodes[0].extras!, "__proto__")).toBe(true); // glTF itself keeps them (the reference)
    const { enc, text } = await usda(src);
    expect(enc.warnings).toEqual([]);
    const dec = await read(text);
    expect(dec.warnings).toEqual([]);
    expect(json(dec.scene.nodes.map((n) => [n.name, n.extras]))).toEqual(json(src.nodes.map((n) => [n.name, n.extras])));
    expect(json(dec.scene.meshes[0].extras)).toEqual(json(src.meshes[0].extras));
    expect(json(dec.scene.materials[0].extras)).toEqual(json(src.materials[0].extras));
    expect(Object.hasOwn(dec.scene.nodes[0].extras!, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(dec.scene.nodes[0].extras)).toBe(Object.prototype);
    expect(dec.scene.nodes[0].extras!.lone).toBe("\ud800 lone surrogate");
  });

  it("writes typed USD dictionary values beside Kiln's own keys, quoting keys that are not identifiers", async () => {
    const { text } = await usda(scene());
    const layer = parseUsda(text);
    const node = layer.prims[0].children.find((p) => p.name === "Crate")!;
    const data = node.metadata.customData as UsdDict;
    const user = data.userProperties as UsdDict;
    const types = Object.fromEntries(["label", "count", "weight", "big", "unsafe", "solid", "numbers", "strings", "flags", "nested", "none", "mixed", "wrapperLike"].map((k) => [k, dictType(user, k)]));
    expect(types).toEqual({ label: "string", count: "int64", weight: "double", big: "double", unsafe: "double", solid: "bool", numbers: "double[]", strings: "string[]", flags: "bool[]", nested: "dictionary", none: "dictionary", mixed: "dictionary", wrapperLike: "dictionary" });
    expect(user.none).toEqual({ kilnJson: "null" });
    expect(user.mixed).toEqual({ kilnJson: '[1,"two",false,null]' });
    expect(text).toMatch(/^\s*int64 count = 3$/m);
    expect(text).toMatch(/^\s*bool\[\] flags = \[1, 0, 1\]$/m);
    expect(text).toMatch(/^\s*int64 "with space" = 1$/m);
    expect(text).toMatch(/^\s*string "1digit" = "k"$/m);
    expect(text).toMatch(/^\s*string def = "keyword"$/m);
    // The mesh's properties are on the Mesh prim, the node's on the Xform: one prim, one owner.
    const mesh = node.children.find((p) => p.type === "Mesh")!;
    expect(Object.keys((mesh.metadata.customData as UsdDict).userProperties as UsdDict).sort()).toEqual(["lod", "meta", "targetNames"]);
    // The light's node keeps its properties on its Xform; the light prim has none.
    const lamp = layer.prims[0].children.find((p) => p.name === "Lamp")!;
    expect(((lamp.metadata.customData as UsdDict).userProperties as UsdDict).watts).toBe(60);
    expect(lamp.children[0].metadata.customData).toBeUndefined();
  });

  it("reads other tools' userProperties: a transformed Mesh prim's go to its node, a light's join its node's", async () => {
    const text = `#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Y"
)
def Mesh "Tri" (
    customData = {
        dictionary userProperties = {
            string 'single' = "q"
            double3 colour = (1, 0.5, 0)
            token kind = "prop"
            asset file = @tex.png@
            float bad = inf
        }
    }
)
{
    double3 xformOp:translate = (1, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    int[] faceVertexCounts = [3]
    int[] faceVertexIndices = [0, 1, 2]
    point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
}
def Xform "Holder"
{
    def SphereLight "Light" (
        customData = { dictionary userProperties = { int64 watts = 40 } }
    )
    {
        bool treatAsPoint = 1
    }
}
`;
    const dec = await read(text);
    expect(dec.scene.nodes[0].extras).toEqual({ single: "q", colour: [1, 0.5, 0], kind: "prop", file: "tex.png" });
    expect(dec.scene.meshes[0].extras).toBeUndefined();
    expect(dec.scene.nodes[1].extras).toEqual({ watts: 40 });
    expect(dec.warnings).toContain('usd: custom property "bad" of node "Tri" dropped: its value is not JSON');
  });

  it("reads Blender 4's userProperties:* attributes, beside customData's, leaving out Blender's own names", async () => {
    const text = `#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Z"
)
def Xform "Crate"
{
    custom int userProperties:count = 3
    custom float userProperties:weight = 0.5
    custom string userProperties:label = "caf\\xc3\\xa9"
    custom bool userProperties:solid = 1
    custom float3 userProperties:offset = (1, 2, 3)
    custom int[] userProperties:ids = [4, 5]
    custom double userProperties:speed.timeSamples = { 2: 9, 1: 7 }
    custom float userProperties:bad = nan
    custom int userProperties:unset
    custom string userProperties:blender:object_name = "Crate"
    double3 xformOp:translate = (1, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]

    def Mesh "Crate_001" (
        customData = { dictionary userProperties = { string source = "data" } }
    )
    {
        custom string userProperties:material_note = "rough"
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
    }
}
`;
    const dec = await read(text);
    expect(dec.scene.nodes[0].extras).toEqual({ count: 3, weight: 0.5, label: "café", solid: true, offset: [1, 2, 3], ids: [4, 5], speed: 7 });
    // The Mesh prim under the Xform is the node's mesh: its properties, both kinds, are the mesh's.
    expect(dec.scene.nodes).toHaveLength(1);
    expect(dec.scene.meshes[0].extras).toEqual({ material_note: "rough", source: "data" });
    expect(dec.warnings).toContain('usd: custom property "bad" of node "Crate" dropped: its value is not JSON');
  });

  it("takes the earliest time sample of a property attribute however many there are, skipping a NaN time", async () => {
    const samples = Array.from({ length: 150_000 }, (_, i) => `${i + 2}: ${i}`).join(", ");
    const text = `#usda 1.0\n(\n    metersPerUnit = 1\n)\ndef Xform "Many"\n{\n    custom double userProperties:speed.timeSamples = { nan: 5, ${samples}, 1.5: 42 }\n}\n`;
    const dec = await read(text);
    expect(dec.scene.nodes[0].extras).toEqual({ speed: 42 });
  });

  it("keeps joints' properties on their Skeleton, by joint path", async () => {
    const s = scene();
    const node = (name: string, parent: number | null, extra?: InterchangeExtras) => ({ name, parent, translation: [0, 1, 0] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number], scale: [1, 1, 1] as [number, number, number], ...(extra ? { extras: extra } : {}) });
    s.nodes = [node("Body", null), node("Hips", 0, { bone: "root", n: [1, 2] }), node("Spine", 1, { bone: "spine" })];
    Object.assign(s.nodes[0], { mesh: 0, skin: 0 });
    s.meshes[0] = { ...s.meshes[0], joints: new Uint16Array(12), weights: Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0) };
    s.skins = [{ name: "Rig", joints: [1, 2], inverseBindMatrices: new Float32Array(32).map((_, k) => (k % 16) % 5 === 0 ? 1 : 0) }];
    const { enc, text } = await usda(s);
    expect(enc.warnings).toEqual([]);
    expect(text).toContain("dictionary kilnJointUserProperties");
    const dec = await read(text);
    expect(dec.scene.nodes.map((n) => [n.name, n.extras])).toEqual([["Body", undefined], ["Hips", { bone: "root", n: [1, 2] }], ["Spine", { bone: "spine" }]]);
  });
});

describe("USDA custom properties limits", () => {
  const wrap = (body: string) => `#usda 1.0\ndef Xform "N" (\n    customData = {\n        dictionary userProperties = {\n${body}\n        }\n    }\n)\n{\n}\n`;
  const nestedDicts = (n: number) => `${"dictionary d = {\n".repeat(n)}int64 x = 1\n${"}\n".repeat(n)}`;

  it("accepts properties nested to the limit and refuses one level more, in dictionaries and in kilnJson text", async () => {
    const ok = await read(wrap(nestedDicts(LIMITS.propertiesDepth)));
    expect(ok.scene.nodes[0].extras).toBeDefined();
    await expect(read(wrap(nestedDicts(LIMITS.propertiesDepth + 1)))).rejects.toThrow(`custom properties of node "N" nest deeper than ${LIMITS.propertiesDepth} levels`);
    const deepJson = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const okJson = await read(wrap(`dictionary a = { string kilnJson = "${deepJson(LIMITS.propertiesDepth)}" }`));
    expect(JSON.stringify(okJson.scene.nodes[0].extras)).toBe(`{"a":${deepJson(LIMITS.propertiesDepth)}}`);
    // A million levels of JSON text: refused by name, without overflowing the stack.
    const err = await read(wrap(`dictionary a = { string kilnJson = "${deepJson(1_000_000)}" }`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitError);
    expect((err as Error).message).toBe(`usd: custom properties of node "N" nest deeper than ${LIMITS.propertiesDepth} levels`);
  });

  it("refuses a file whose properties take more than the size cap", async () => {
    const big = "x".repeat(LIMITS.propertiesChars / 2);
    const text = `#usda 1.0\n${["A", "B", "C"].map((n) => `def Xform "${n}" (\n    customData = { dictionary userProperties = { string s = "${big}" } }\n)\n{\n}\n`).join("")}`;
    await expect(read(text)).rejects.toThrow(`the file's custom properties take more than ${LIMITS.propertiesChars} characters of JSON`);
  });

  it("ignores a userProperties entry that is not a dictionary, with a warning", async () => {
    const dec = await read(`#usda 1.0\ndef Xform "N" (\n    customData = { string userProperties = "x" }\n)\n{\n}\n`);
    expect(dec.scene.nodes[0].extras).toBeUndefined();
    expect(dec.warnings).toEqual(['usd: customData.userProperties of node "N" is not a dictionary; ignored']);
  });

  it("drops kilnJson text that is not JSON, with a warning", async () => {
    const dec = await read(wrap(`dictionary a = { string kilnJson = "{oops" }\nint64 b = 2`));
    expect(dec.scene.nodes[0].extras).toEqual({ b: 2 });
    expect(dec.warnings).toEqual(['usd: custom property "a" of node "N" dropped: its value is not JSON']);
  });
});
