// Invariant: a scene written as binary FBX and read back (FBXLoader) is the same scene in metres:
// names (spaces included), hierarchy, world transforms, geometry, material colour/metallic/
// roughness, light, camera and keyframes, with no warnings; cameras and lights use FBX's own axis
// conventions in the file; assimp reads the file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Vector3, type Object3D } from "three";
import { decodeFbx, loadFbx, loaderId } from "./fbx-read";
import { readFbxBinary, text, writeFbxBinary } from "./fbx-binary";
import { encodeFbx } from "./fbx";
import { worldMatrices, type InterchangeScene } from "./interchange";
import { axisAngle, fixtureScene } from "../../../tests/fixtures/formats/scene";
import { expectRoundTrip } from "../../../tests/fixtures/formats/compare";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";

const roundTrip = async (scene: InterchangeScene) => {
  const enc = await encodeFbx(scene, "scene");
  const dec = await decodeFbx(new Map([["scene.fbx", enc.files[0].bytes]]), "scene.fbx");
  return { enc, dec };
};
const all = { hierarchy: true, lights: true, cameras: true, animations: true, pbr: true };

describe("FBX binary format", () => {
  it("round-trips the fixture scene with no warnings", async () => {
    const src = fixtureScene();
    const { enc, dec } = await roundTrip(src);
    expect(new TextDecoder().decode(enc.files[0].bytes.subarray(0, 18))).toBe("Kaydara FBX Binary");
    expect(enc.warnings).toEqual([]);
    expect(dec.warnings).toEqual([]);
    expectRoundTrip(src, dec.scene, all);
  });

  it("keeps a node 1 m above the ground at 1 m and declares metres (UnitScaleFactor 100)", async () => {
    const src: InterchangeScene = { nodes: [{ name: "Up", parent: null, translation: [0, 1, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1] }], meshes: [], materials: [], animations: [] };
    const { dec } = await roundTrip(src);
    expect(dec.scene.nodes[0].translation[1]).toBeCloseTo(1, 9);
  });

  it("reads centimetre files (UnitScaleFactor 1) as metres", async () => {
    const src = fixtureScene();
    const bytes = (await encodeFbx(src, "s")).files[0].bytes;
    // Rewrite the declared factor from 100 to 1: the same numbers now mean centimetres.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = Buffer.from(bytes).indexOf("UnitScaleFactor");
    const value = Buffer.from(bytes).indexOf(Buffer.from([0x44]), at + "UnitScaleFactor".length + 20); // 'D' = float64 property
    expect(view.getFloat64(value + 1, true)).toBe(100);
    view.setFloat64(value + 1, 1, true);
    const dec = await decodeFbx(new Map([["s.fbx", bytes]]), "s.fbx");
    const up = dec.scene.nodes.find((n) => n.name === "Parent Empty")!;
    expect(up.translation[1]).toBeCloseTo(0.01, 9);
  });

  it("aims directional and spot lights and cameras the same way after a round trip, including their children", async () => {
    const src: InterchangeScene = {
      nodes: [
        { name: "Sun", parent: null, translation: [1, 2, 3], rotation: axisAngle([1, 0, 0], -60), scale: [1, 2, 3], light: { type: "directional", color: [1, 1, 1], intensity: 3 } },
        { name: "Spot", parent: 0, translation: [0, 1, 0], rotation: axisAngle([0, 1, 0], 30), scale: [1, 1, 1], light: { type: "spot", color: [0.2, 0.4, 0.6], intensity: 10, range: 5, spotAngleDeg: 25 } },
        { name: "Cam", parent: 1, translation: [0, 0, 1], rotation: axisAngle([0, 0, 1], 15), scale: [1, 1, 1], camera: { fovYDeg: 60, near: 0.05, far: 500 } },
      ],
      meshes: [],
      materials: [],
      animations: [{ node: 2, times: [0, 0.5], translations: [[0, 0, 1], [0, 1, 1]], rotations: [axisAngle([0, 0, 1], 15), axisAngle([0, 1, 0], 40)], scales: [[1, 1, 1], [1, 2, 3]] }],
    };
    const { enc, dec } = await roundTrip(src);
    expect(enc.warnings).toEqual([]);
    expect(dec.warnings).toEqual([]);
    expectRoundTrip(src, dec.scene, all);
    expect(dec.scene.nodes.map((n) => n.light?.spotAngleDeg)).toEqual([undefined, expect.closeTo(25, 6), undefined]);
  });

  it("stores cameras looking along FBX +X and lights shining along FBX -Y, as DCC tools expect", async () => {
    const src: InterchangeScene = {
      nodes: [
        { name: "Cam", parent: null, translation: [0, 0, 0], rotation: axisAngle([1, 0, 0], -30), scale: [1, 1, 1], camera: { fovYDeg: 50, near: 0.1, far: 10 } },
        { name: "Sun", parent: null, translation: [0, 0, 0], rotation: axisAngle([0, 1, 0], 70), scale: [1, 1, 1], light: { type: "directional", color: [1, 1, 1], intensity: 1 } },
      ],
      meshes: [],
      materials: [],
      animations: [],
    };
    const raw = loadFbx((await encodeFbx(src, "axes")).files[0].bytes, []);
    raw.updateMatrixWorld(true);
    const byName = (name: string) => raw.getObjectByProperty("name", name) as Object3D;
    const world = worldMatrices(src);
    const expected = (i: number) => new Vector3(0, 0, -1).transformDirection(world[i]);
    expect(new Vector3(1, 0, 0).transformDirection(byName("Cam").matrixWorld).distanceTo(expected(0))).toBeLessThan(1e-6);
    // FBXLoader adds DEFAULT_UP to light positions, which does not affect directions.
    expect(new Vector3(0, -1, 0).transformDirection(byName("Sun").matrixWorld).distanceTo(expected(1))).toBeLessThan(1e-6);
  });

  it("moves a second attachment to a child model and says so", async () => {
    const src = fixtureScene();
    src.nodes[1].light = { type: "point", color: [1, 1, 1], intensity: 1 };
    const { enc, dec } = await roundTrip(src);
    expect(enc.warnings).toEqual(['fbx: light on node "Child Cube" moved to child node "Child Cube_light" (an FBX model holds one attribute)']);
    const child = dec.scene.nodes.findIndex((n) => n.name === "Child Cube_light");
    expect(dec.scene.nodes[dec.scene.nodes[child].parent!].name).toBe("Child Cube");
    const w = worldMatrices(dec.scene);
    expect(w[child].elements.map((e, i) => Math.abs(e - w[dec.scene.nodes[child].parent!].elements[i]) < 1e-5)).not.toContain(false);
  });

  it("keeps every key of a yaw animation through 90° and past 180°, exactly at 90°", async () => {
    const yaw = (deg: number) => axisAngle([0, 1, 0], deg);
    const src: InterchangeScene = {
      nodes: [{ name: "Spinner", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1] }],
      meshes: [], materials: [],
      animations: [{ node: 0, times: [0, 1, 2, 3], rotations: [yaw(45), yaw(90), yaw(200), yaw(300)] }],
    };
    const { dec } = await roundTrip(src);
    expectRoundTrip(src, dec.scene, all);
  });

  it("finds each model's geometry by the ids FBXLoader computes, negative ids included", async () => {
    const src = fixtureScene();
    const doc = readFbxBinary((await encodeFbx(src, "ids")).files[0].bytes);
    // Give the two mesh models ids whose FBXLoader numbers are not Number(id).
    const objects = doc.nodes.find((n) => n.name === "Objects")!.children;
    const models = objects.filter((n) => n.name === "Model" && text(n.properties[2]) === "Mesh");
    expect(models.length).toBe(2);
    const renamed = new Map(models.map((m, k) => [m.properties[0].value as bigint, k ? -(2n ** 40n) + 7n : -3_000_000_000n]));
    for (const n of [...objects, ...doc.nodes.find((n) => n.name === "Connections")!.children])
      for (const p of n.properties) if (p.type === "L" && renamed.has(p.value)) p.value = renamed.get(p.value)!;
    expect(loaderId({ type: "L", value: -3_000_000_000n })).toBe(1294967296);
    expect(loaderId({ type: "L", value: -(2n ** 40n) + 7n })).toBe(-1095216660473);
    const dec = await decodeFbx(new Map([["ids.fbx", writeFbxBinary(doc)]]), "ids.fbx");
    expect(dec.warnings).toEqual([]);
    expectRoundTrip(src, dec.scene, all);
  });

  it("reads ASCII FBX through FBXLoader alone", async () => {
    const ascii = `; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UnitScaleFactor", "double", "Number", "",100
	}
}
Objects:  {
	Geometry: 10, "Geometry::Tri", "Mesh" {
		Vertices: *9 {
			a: 0,0,0,1,0,0,0,1,0
		}
		PolygonVertexIndex: *3 {
			a: 0,1,-3
		}
		LayerElementNormal: 0 {
			Version: 101
			MappingInformationType: "ByPolygonVertex"
			ReferenceInformationType: "Direct"
			Normals: *9 {
				a: 0,0,1,0,0,1,0,0,1
			}
		}
	}
	Model: 20, "Model::Tri", "Mesh" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,2,0
		}
	}
}
Connections:  {
	C: "OO",20,0
	C: "OO",10,20
}
`;
    const dec = await decodeFbx(new Map([["tri.fbx", new TextEncoder().encode(ascii)]]), "tri.fbx");
    expect(dec.scene.nodes.map((n) => [n.name, n.translation[1], n.mesh])).toEqual([["Tri", expect.closeTo(2, 9), 0]]);
    expect(dec.scene.meshes[0].indices.length).toBe(3);
    expect(Array.from(dec.scene.meshes[0].normals.subarray(0, 3))).toEqual([0, 0, 1]);
  });

  it("writes a file assimp can read", async (ctx) => {
    const enc = await encodeFbx(fixtureScene(), "fixture");
    const dir = mkdtempSync(join(tmpdir(), "kiln-fbx-"));
    writeFileSync(join(dir, "fixture.fbx"), enc.files[0].bytes);
    const info = assimpInfo(join(dir, "fixture.fbx"));
    if (info === null) return ctx.skip("assimp not installed (apt-get install -y assimp-utils)");
    expect(info.exitCode, info.output).toBe(0);
    expect(info.output).toMatch(/Meshes:\s+2/);
  });
});
