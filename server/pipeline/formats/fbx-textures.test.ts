// Invariant: material textures travel in FBX as Blender reads them: embedded image bytes (as they
// came), connected to the material property of their slot, with the UV set by name and a
// Translation/Rotation/Scaling that Blender's importer turns into exactly the UV mapping Blender's
// glTF importer makes of KHR_texture_transform; the reader inverts it, skips the metallic and
// roughness images it split out for other tools, and warns about textures it cannot keep.
import { describe, expect, it } from "vitest";
import { Euler, Matrix4, Vector3 } from "three";
import { childrenNamed, readFbxBinary, text, writeFbxBinary, type FbxNode } from "./fbx-binary";
import { encodeFbx } from "./fbx";
import { decodeFbx } from "./fbx-read";
import { fbxTextureTransform, gltfTextureTransform } from "./fbx-textures";
import type { InterchangeScene, InterchangeTexture } from "./interchange";
import { readAsset } from "../../../tests/fixtures/assets/read";

/** Blender's glTF importer: uv' of a (Blender) uv under KHR_texture_transform (POINT mapping). */
function gltfMapping(t: InterchangeTexture, u: number, v: number): number[] {
  const [ox, oy] = t.offset ?? [0, 0], [sx, sy] = t.scale ?? [1, 1], r = t.rotation ?? 0;
  const loc = [ox + sy * Math.sin(r), 1 - oy - sy * Math.cos(r)];
  const c = Math.cos(r), s = Math.sin(r);
  return [c * sx * u - s * sy * v + loc[0], s * sx * u + c * sy * v + loc[1]];
}
/** Blender's FBX importer: a TEXTURE mapping with location T, rotation -R (Euler XYZ), scale 1/S: safe_divide(rotᵀ·(uv - T), scale). */
function fbxMapping(f: ReturnType<typeof fbxTextureTransform>, u: number, v: number): number[] {
  const rot = new Matrix4().makeRotationFromEuler(new Euler(-f.rotation[0], -f.rotation[1], -f.rotation[2], "ZYX"));
  const p = new Vector3(u - f.translation[0], v - f.translation[1], -f.translation[2]).applyMatrix4(rot.transpose());
  return [p.x * f.scaling[0], p.y * f.scaling[1]];
}

const transforms: InterchangeTexture[] = [
  { image: 0, uv: 0 },
  { image: 0, uv: 0, offset: [0.1, 0.2], scale: [4, 5] },
  { image: 0, uv: 0, offset: [0.3, -0.4], scale: [2, 2], rotation: 1.1 },
  { image: 0, uv: 0, offset: [0.1, 0.2], scale: [4, 5], rotation: 0.3 },
  { image: 0, uv: 0, offset: [0.5, 0.6], scale: [8, 0.5], rotation: -2.7 },
];

describe("FBX textures", () => {
  it.each(transforms)("maps UVs in Blender exactly as the glTF importer does: %j", (t) => {
    const f = fbxTextureTransform(t);
    expect(f.tilted).toBe(!!t.rotation && t.scale![0] !== t.scale![1]);
    for (const [u, v] of [[0, 0], [1, 0], [0, 1], [0.3, 0.7], [-2, 5]]) fbxMapping(f, u, v).forEach((x, i) => expect(x).toBeCloseTo(gltfMapping(t, u, v)[i], 9));
    const back = gltfTextureTransform(f.translation, f.rotation, f.scaling);
    const { image: _i, uv: _u, ...want } = t;
    expect(Object.keys(back).sort()).toEqual(Object.keys(want).sort());
    for (const [k, value] of Object.entries(want)) [value].flat().forEach((x, i) => expect([(back as Record<string, number | number[]>)[k]].flat()[i]).toBeCloseTo(x as number, 9));
  });

  it("embeds the image bytes once, connects each slot to its property with its UV set, and splits metallic-roughness for other tools", async () => {
    const src = (await readAsset("12_orm_two_uvmaps")).scene;
    const doc = readFbxBinary((await encodeFbx(src, "a")).files[0].bytes);
    const objects = doc.nodes.find((n) => n.name === "Objects")!;
    const videos = childrenNamed(objects, "Video");
    const content = (v: FbxNode) => childrenNamed(v, "Content")[0].properties[0].value as Uint8Array;
    expect(Buffer.from(content(videos[0])).equals(Buffer.from(src.images![0].bytes))).toBe(true);
    expect(videos).toHaveLength(3); // ORM, and its metallic and roughness channels
    const ops = childrenNamed(doc.nodes.find((n) => n.name === "Connections"), "C").filter((c) => text(c.properties[0]) === "OP").map((c) => text(c.properties[3])).sort();
    expect(ops).toEqual(["Kiln|metallicRoughness", "Maya|TEX_ao_map", "ReflectionFactor", "ShininessExponent"]);
    const uvSets = childrenNamed(objects, "Texture").map((t) => childrenNamed(childrenNamed(t, "Properties70")[0], "P").find((p) => text(p.properties[0]) === "UVSet")!.properties[4]);
    expect(uvSets.map(text).sort()).toEqual(["UVMap", "UVMap", "UVMap", "UVMap.001"]);
    const dec = await decodeFbx(new Map([["a.fbx", writeFbxBinary(doc)]]), "a.fbx");
    expect(dec.warnings).toEqual([]);
    expect(dec.scene.images).toHaveLength(1);
    expect(dec.scene.materials[0].textures).toEqual(src.materials[0].textures);
  });

  it("warns about textures it cannot keep: not embedded, not PNG or JPEG, or in a slot Kiln lacks", async () => {
    const src: InterchangeScene = {
      nodes: [{ name: "N", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0, material: 0 }],
      meshes: [{ name: "M", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2), uvs: [Float32Array.of(0, 0, 1, 0, 0, 1)] }],
      materials: [{ name: "Mat", color: [1, 1, 1, 1], metallic: 0, roughness: 1, textures: { baseColor: { image: 0, uv: 0 }, normal: { image: 1, uv: 0 }, emissive: { image: 2, uv: 0 } } }],
      images: [
        { name: "png", mimeType: "image/png", bytes: Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 1) },
        { name: "jpg", mimeType: "image/jpeg", bytes: Uint8Array.of(0xff, 0xd8, 0xff, 2) },
        { name: "gif", mimeType: "image/png", bytes: Uint8Array.of(0x47, 0x49, 0x46, 3) },
      ],
      animations: [],
    };
    const doc = readFbxBinary((await encodeFbx(src, "a")).files[0].bytes);
    const objects = doc.nodes.find((n) => n.name === "Objects")!;
    const byName = (name: string) => childrenNamed(objects, "Video").find((v) => text(v.properties[1]).startsWith(name))!;
    byName("png").children = byName("png").children.filter((c) => c.name !== "Content");
    const op = childrenNamed(doc.nodes.find((n) => n.name === "Connections"), "C").find((c) => text(c.properties[3]) === "NormalMap")!;
    op.properties[3] = { type: "S", value: new TextEncoder().encode("SpecularColor") };
    const dec = await decodeFbx(new Map([["a.fbx", writeFbxBinary(doc)]]), "a.fbx");
    expect(dec.warnings.sort()).toEqual([
      'fbx: texture "Mat_baseColor" of material "Mat" dropped: its image is not embedded',
      'fbx: texture "Mat_emissive" of material "Mat" dropped: its image is neither PNG nor JPEG',
      'fbx: texture "Mat_normal" of material "Mat" (SpecularColor) dropped: Kiln has no such slot',
    ]);
    expect(dec.scene.materials[0].textures).toBeUndefined();
    expect(dec.scene.images).toBeUndefined();
  });
});
