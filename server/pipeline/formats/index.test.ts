// Invariant: encode/decode dispatch to the right codec for every TransferFormat, files carry the
// advertised extensions, and a scene can travel through every format in a chain (glTF → FBX →
// USD → glTF) keeping names, hierarchy, world transforms and materials.
import { describe, expect, it } from "vitest";
import { decode, encode, FORMAT_EXTENSIONS, type TransferFormat } from "./index";
import type { InterchangeScene } from "./interchange";
import { axisAngle, fixtureScene } from "../../../tests/fixtures/formats/scene";
import { expectRoundTrip } from "../../../tests/fixtures/formats/compare";

const FORMATS = Object.keys(FORMAT_EXTENSIONS) as TransferFormat[];

describe("format dispatch", () => {
  it.each(FORMATS)("names %s files with the advertised extensions and reads them back", async (format) => {
    const enc = await encode(format, fixtureScene(), "scene");
    expect(enc.files.map((f) => f.name)).toEqual(FORMAT_EXTENSIONS[format].map((ext) => `scene${ext}`));
    const dec = await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
    expect(dec.scene.nodes.map((n) => n.name)).toContain("Child Cube");
  });

  it("carries a scene through glTF → FBX → USD → glTF", async () => {
    const src = fixtureScene();
    let scene = src;
    for (const format of ["gltf", "fbx", "usd", "gltf"] as const) {
      const enc = await encode(format, scene, "hop");
      expect(enc.warnings).toEqual([]);
      const dec = await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
      expect(dec.warnings).toEqual([]);
      scene = dec.scene;
    }
    expectRoundTrip(src, scene, { hierarchy: true, lights: true, cameras: true, animations: true, pbr: true });
  });

  it("rejects a structurally invalid scene instead of writing a broken file", async () => {
    const bad = fixtureScene();
    bad.nodes[0].parent = 1; // 0 → 1 → 0 cycle
    await expect(encode("gltf", bad, "x")).rejects.toThrow(/parent cycle/);
  });
});

/** Shared mesh, a material-less node, a translucent and an unused material, a sheared hierarchy. */
function edgeScene(): InterchangeScene {
  const s = fixtureScene();
  return {
    nodes: [
      { name: "Stretched", parent: null, translation: [1, 0, 0], rotation: axisAngle([0, 0, 1], 30), scale: [1, 2, 3], mesh: 0 },
      { name: "Twisted", parent: 0, translation: [0, 1, 0], rotation: axisAngle([1, 1, 0].map((v) => v / Math.SQRT2) as [number, number, number], 40), scale: [1, 1, 1], mesh: 0, material: 0 },
      { name: "Tip", parent: 1, translation: [0, 0, 1], rotation: [0, 0, 0, 1], scale: [0.5, 0.5, 0.5] },
    ],
    meshes: [s.meshes[0]],
    materials: [{ name: "Glass", color: [0.2, 0.6, 0.9, 0.5], metallic: 0, roughness: 0.1 }, { name: "Unused", color: [1, 1, 1, 1], metallic: 1, roughness: 1 }],
    animations: [],
  };
}

describe("edge cases across formats", () => {
  const expected: Record<TransferFormat, { warnings: string[]; meshes: number; materials: number }> = {
    gltf: { warnings: [], meshes: 1, materials: 2 },
    fbx: { warnings: ['fbx: unused material "Unused" dropped'], meshes: 1, materials: 1 },
    usd: { warnings: [], meshes: 1, materials: 2 },
    obj: {
      warnings: [
        "obj: node hierarchy and transforms dropped (baked into world-space vertices)",
        'obj: empty node "Tip" dropped',
        'obj: mesh names dropped ("Cube Mesh"); each mesh takes its object\'s name',
        'obj: mesh "Cube Mesh" shared by 2 nodes written once per node (instancing dropped)',
      ],
      meshes: 2,
      materials: 2,
    },
  };
  it.each(FORMATS)("%s keeps shared meshes, missing materials, alpha and sheared world transforms", async (format) => {
    const src = edgeScene();
    const enc = await encode(format, src, "edge");
    expect(enc.warnings).toEqual(expected[format].warnings);
    const dec = await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
    expect(dec.warnings).toEqual([]);
    expect([dec.scene.meshes.length, dec.scene.materials.length]).toEqual([expected[format].meshes, expected[format].materials]);
    expect(dec.scene.nodes.find((n) => n.name === "Stretched")!.material).toBeUndefined();
    expectRoundTrip(src, dec.scene, { hierarchy: format !== "obj", lights: true, cameras: true, animations: true, pbr: true });
  });
});

describe("light fields that do not apply", () => {
  it.each(["gltf", "fbx", "usd"] as TransferFormat[])("%s drops a directional range and a point-light cone with a warning", async (format) => {
    const src: InterchangeScene = {
      nodes: [
        { name: "Sun", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], light: { type: "directional", color: [1, 1, 1], intensity: 1, range: 5 } },
        { name: "Bulb", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], light: { type: "point", color: [1, 1, 1], intensity: 1, spotAngleDeg: 10 } },
      ],
      meshes: [],
      materials: [],
      animations: [],
    };
    const enc = await encode(format, src, "lights");
    expect(enc.warnings).toEqual([`${format}: range of directional light "Sun" dropped`, `${format}: cone angle of point light "Bulb" dropped`]);
    const dec = await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
    expect(dec.scene.nodes.map((n) => [n.light?.range, n.light?.spotAngleDeg])).toEqual([[undefined, undefined], [undefined, undefined]]);
  });
});
