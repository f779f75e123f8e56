// Invariant: each real asset written by Blender's glTF exporter (tests/fixtures/assets) keeps its
// UV sets, vertex colours, material slots, textures (same bytes), skins, morph targets and extras
// through Kiln's glTF writer and reader, and the written file passes the Khronos validator and `assimp info` (when installed).
import { describe, expect, it } from "vitest";
import { validateBytes } from "gltf-validator";
import { decodeGltf, encodeGltf } from "./gltf";
import type { InterchangeScene } from "./interchange";
import { ASSETS, readAsset } from "../../../tests/fixtures/assets/read";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "kiln-gltf-assets-"));

const close = (a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined, eps = 1e-6) => {
  expect(a?.length).toBe(b?.length);
  for (let i = 0; i < (a?.length ?? 0); i++) if (Math.abs(a![i] - b![i]) > eps) expect([i, a![i]]).toEqual([i, b![i]]);
};

/** Everything issue 15 asks to keep, compared field by field. */
export function expectSameAssetData(src: InterchangeScene, dst: InterchangeScene) {
  expect(dst.meshes.length).toBe(src.meshes.length);
  src.meshes.forEach((m, k) => {
    const d = dst.meshes[k];
    expect(d.uvs?.length ?? 0).toBe(m.uvs?.length ?? 0);
    (m.uvs ?? []).forEach((uv, s) => close(d.uvs![s], uv));
    close(d.colors, m.colors, 1 / 255);
    close(d.weights, m.weights);
    close(d.joints, m.joints, 0);
    expect(d.groups).toEqual(m.groups);
    expect(d.morphTargets?.map((t) => t.name)).toEqual(m.morphTargets?.map((t) => t.name));
    m.morphTargets?.forEach((t, i) => close(d.morphTargets![i].positions, t.positions));
    expect(d.morphWeights).toEqual(m.morphWeights);
  });
  expect(dst.nodes.map((n) => [n.name, n.material, n.materials, n.skin, n.extras])).toEqual(src.nodes.map((n) => [n.name, n.material, n.materials, n.skin, n.extras]));
  expect(dst.materials.map((m) => [m.name, m.textures, m.alphaMode, m.doubleSided, m.emissive])).toEqual(src.materials.map((m) => [m.name, m.textures, m.alphaMode, m.doubleSided, m.emissive]));
  expect((dst.images ?? []).map((i) => Buffer.from(i.bytes).toString("base64"))).toEqual((src.images ?? []).map((i) => Buffer.from(i.bytes).toString("base64")));
  expect(dst.skins?.map((s) => s.joints)).toEqual(src.skins?.map((s) => s.joints));
  src.skins?.forEach((s, k) => close(dst.skins![k].inverseBindMatrices, s.inverseBindMatrices));
  expect(dst.animations.map((a) => [a.node, a.times.length, Object.keys(a).sort()])).toEqual(src.animations.map((a) => [a.node, a.times.length, Object.keys(a).sort()]));
}

describe("real Blender glTF assets through Kiln's glTF codec", () => {
  it.each(ASSETS)("%s keeps its asset data and validates", async (name) => {
    const src = await readAsset(name);
    const enc = await encodeGltf(src.scene, name);
    const report = await validateBytes(enc.files[0].bytes);
    expect(report.issues.messages.filter((m: { severity: number }) => m.severity === 0)).toEqual([]);
    const file = join(dir, `${name}.glb`);
    writeFileSync(file, enc.files[0].bytes);
    const info = assimpInfo(file);
    if (info) expect(info.exitCode, info.output).toBe(0);
    const dst = await decodeGltf(new Map([[`${name}.glb`, enc.files[0].bytes]]), `${name}.glb`);
    expect(dst.warnings).toEqual([]);
    expectSameAssetData(src.scene, dst.scene);
  });

  it("reads what each fixture is about", async () => {
    const uv2 = (await readAsset("12_orm_two_uvmaps")).scene;
    expect(uv2.meshes[0].uvs).toHaveLength(2);
    expect(uv2.materials[0].textures?.occlusion?.uv).toBe(1);
    const slots = (await readAsset("22_material_slot_not_merge")).scene;
    expect(slots.nodes.some((n) => (n.materials?.length ?? 0) > 1)).toBe(true);
    const skin = (await readAsset("03_skinned_cylinder")).scene;
    expect(skin.skins?.[0].joints.length).toBeGreaterThan(1);
    const morph = (await readAsset("01_morphed_cube")).scene;
    expect(morph.meshes[0].morphTargets?.map((t) => t.name)).toEqual(["Bottom", "Top"]);
    expect(morph.animations.some((a) => a.weights)).toBe(true);
    const tt = (await readAsset("09_texture_transform")).scene;
    expect(tt.materials.some((m) => m.textures?.baseColor?.scale)).toBe(true);
    const vc = (await readAsset("22_vertex_color")).scene;
    expect(vc.meshes.some((m) => m.colors)).toBe(true);
  });
});
