/**
 * The decoded-scene check covers issue 15's asset data: UV sets, colours and skin weights sized
 * to their mesh and finite, material groups consecutive whole triangles, skins naming real nodes
 * with finite bind matrices, textures naming images of the file.
 */
import { describe, expect, it } from "vitest";
import type { InterchangeScene } from "./interchange";
import { checkDecodedScene } from "./limits";

function tri(): InterchangeScene {
  return {
    nodes: [{ name: "T", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0 }],
    meshes: [{ name: "T", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2) }],
    materials: [{ name: "M", color: [1, 1, 1, 1], metallic: 0, roughness: 0.5 }],
    animations: [],
  };
}

describe("asset data budgets", () => {
  it("accepts well-formed UVs, colours, skin, groups and textures", () => {
    const s = tri();
    Object.assign(s.meshes[0], { uvs: [new Float32Array(6)], colors: new Float32Array(12), joints: new Uint16Array(12), weights: new Float32Array(12), groups: [{ start: 0, count: 3 }] });
    s.images = [{ name: "i.png", mimeType: "image/png", bytes: new Uint8Array(8) }];
    s.materials[0].textures = { baseColor: { image: 0, uv: 0 } };
    s.skins = [{ name: "S", joints: [0], inverseBindMatrices: new Float32Array(16) }];
    s.nodes[0].skin = 0;
    expect(() => checkDecodedScene(s)).not.toThrow();
  });

  it.each([
    ["UVs of the wrong length", (s: InterchangeScene) => (s.meshes[0].uvs = [new Float32Array(4)]), /UVs/],
    ["a NaN colour", (s: InterchangeScene) => (s.meshes[0].colors = new Float32Array(12).fill(NaN)), /colours/],
    ["weights without joints", (s: InterchangeScene) => (s.meshes[0].weights = new Float32Array(12)), /skin weights/],
    ["a group that is not whole triangles", (s: InterchangeScene) => (s.meshes[0].groups = [{ start: 0, count: 2 }]), /material groups/],
    ["a group that leaves triangles out", (s: InterchangeScene) => (s.meshes[0].groups = [{ start: 3, count: 3 }]), /material groups/],
    ["a skin joint that is not a node", (s: InterchangeScene) => (s.skins = [{ name: "S", joints: [7], inverseBindMatrices: new Float32Array(16) }]), /joint node/],
    ["an infinite bind matrix", (s: InterchangeScene) => (s.skins = [{ name: "S", joints: [0], inverseBindMatrices: new Float32Array(16).fill(Infinity) }]), /inverse bind/],
    ["a texture without its image", (s: InterchangeScene) => (s.materials[0].textures = { normal: { image: 3, uv: 0 } }), /texture/],
    ["a morph target of the wrong length", (s: InterchangeScene) => (s.meshes[0].morphTargets = [{ name: "K", positions: new Float32Array(3) }]), /morph target/],
  ])("refuses %s", (_, spoil, message) => {
    const s = tri();
    spoil(s);
    expect(() => checkDecodedScene(s)).toThrow(message);
  });
});
