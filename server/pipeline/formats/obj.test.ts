// Invariant: OBJ keeps every mesh node as a world-space object with its name, triangle count,
// world-space geometry and material (Kd colour, Pr/Pm roughness/metallic), and every part of the
// scene OBJ cannot hold (hierarchy, empties, lights, cameras, animation, mesh names) is reported
// as a warning. Independent readers (three's OBJLoader + MTLLoader, assimp) accept the output.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OBJLoader } from "three/examples/jsm/loaders/OBJLoader.js";
import { MTLLoader } from "three/examples/jsm/loaders/MTLLoader.js";
import type { Mesh } from "three";
import { decodeObj, encodeObj } from "./obj";
import { fixtureScene } from "../../../tests/fixtures/formats/scene";
import { expectRoundTrip } from "../../../tests/fixtures/formats/compare";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("OBJ + MTL format", () => {
  it("round-trips meshes in world space and warns about exactly what OBJ drops", async () => {
    const src = fixtureScene();
    const enc = await encodeObj(src, "fixture");
    expect(enc.files.map((f) => f.name)).toEqual(["fixture.obj", "fixture.mtl"]);
    expect(enc.warnings).toEqual([
      "obj: node hierarchy and transforms dropped (baked into world-space vertices)",
      'obj: empty node "Parent Empty" dropped',
      'obj: point light on node "Key Light" dropped',
      'obj: camera on node "Main Camera" dropped',
      'obj: animation of node "Child Cube" dropped (3 keys)',
      'obj: mesh names dropped ("Cube Mesh", "Ball Mesh"); each mesh takes its object\'s name',
    ]);
    const dec = await decodeObj(new Map(enc.files.map((f) => [f.name, f.bytes])), "fixture.obj");
    expect(dec.warnings).toEqual([]);
    expect(dec.scene.nodes.map((n) => [n.name, n.parent, n.translation, n.rotation, n.scale])).toEqual([
      ["Child Cube", null, [0, 0, 0], [0, 0, 0, 1], [1, 1, 1]],
      ["Ball", null, [0, 0, 0], [0, 0, 0, 1], [1, 1, 1]],
    ]);
    // Shared vertices stay shared: the cube keeps its 24 corners instead of 36 expanded ones.
    expect(dec.scene.meshes[0].positions.length / 3).toBe(24);
    expectRoundTrip(src, dec.scene, { hierarchy: false, lights: false, cameras: false, animations: false, pbr: true });
  });

  it("is read by three's OBJLoader + MTLLoader with the same objects, triangles and colours", async () => {
    const enc = await encodeObj(fixtureScene(), "fixture");
    const materials = new MTLLoader().parse(text(enc.files[1].bytes), "");
    materials.preload();
    const group = new OBJLoader().setMaterials(materials).parse(text(enc.files[0].bytes));
    const meshes = group.children as Mesh[];
    expect(meshes.map((m) => [m.name, m.geometry.getAttribute("position").count / 3])).toEqual([
      ["Child Cube", 12],
      ["Ball", 80],
    ]);
    expect(materials.materialsInfo["Red Paint"]).toMatchObject({ kd: [1, 0, 0], pr: "0.7", pm: "0.2" });
  });

  it("writes files assimp can read", async (ctx) => {
    const enc = await encodeObj(fixtureScene(), "fixture");
    const dir = mkdtempSync(join(tmpdir(), "kiln-obj-"));
    for (const f of enc.files) writeFileSync(join(dir, f.name), f.bytes);
    const info = assimpInfo(join(dir, "fixture.obj"));
    if (info === null) return ctx.skip("assimp not installed (apt-get install -y assimp-utils)");
    expect(info.exitCode, info.output).toBe(0);
    expect(info.output).toMatch(/Meshes:\s+2/);
  });

  it("writes non-ASCII object and material names as UTF-8", async () => {
    const src = fixtureScene();
    src.nodes[1].name = "Würfel ✓";
    src.materials[0].name = "Röd 🎨";
    const enc = await encodeObj(src, "fixture");
    expect(text(enc.files[0].bytes)).toContain("\no Würfel ✓\n");
    expect(text(enc.files[0].bytes)).toContain("\nusemtl Röd 🎨\n");
    const dec = await decodeObj(new Map(enc.files.map((f) => [f.name, f.bytes])), "fixture.obj");
    expect(dec.scene.nodes.map((n) => [n.name, dec.scene.materials[n.material!].name])).toEqual([
      ["Würfel ✓", "Röd 🎨"],
      ["Ball", "Blue Paint"],
    ]);
  });

  it("reads foreign OBJ features, with a warning for each thing it cannot carry", async () => {
    const obj = ["mtllib m.mtl", "v 0 0 0", "v 1 0 0", "v 1 1 0", "v 0 1 0", "vt 0 0", "o Quad", "usemtl A", "f 1/1 2/1 3/1 4/1", "usemtl B", "f -4 -2 -1", "l 1 2"].join("\n");
    const mtl = ["newmtl A", "Kd 0.5 0.5 0.5", "Ns 250", "map_Kd a.png", "newmtl B", "Kd 1 1 1", "Ke 1 0 0"].join("\n");
    const enc = new TextEncoder();
    const dec = await decodeObj(new Map([["q.obj", enc.encode(obj)], ["m.mtl", enc.encode(mtl)]]), "q.obj");
    expect(dec.warnings).toEqual([
      'obj: material "A": image "a.png" not found beside the file; texture dropped',
      "obj: polygons with more than 3 corners triangulated as fans",
      "obj: lines dropped",
      'obj: object "Quad" had faces without normals; smooth normals computed',
      'obj: object "Quad" has faces without texture coordinates; read as (0, 0)',
    ]);
    // One object with two materials is one mesh with two slots.
    const [quad] = dec.scene.nodes;
    expect([dec.scene.nodes.length, quad.name, quad.materials!.map((m) => dec.scene.materials[m!].name), dec.scene.meshes[quad.mesh!].groups]).toEqual([
      1, "Quad", ["A", "B"], [{ start: 0, count: 6 }, { start: 6, count: 3 }],
    ]);
    expect(dec.scene.materials[1].emissive).toEqual([1, 0, 0]);
    expect(dec.scene.materials[0].roughness).toBeCloseTo(0.5, 6); // 1 - sqrt(250 / 1000)
  });
});
