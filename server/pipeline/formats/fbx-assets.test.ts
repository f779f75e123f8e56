// Invariant: each real asset written by Blender's glTF exporter (tests/fixtures/assets) keeps its
// UV sets, vertex colours, material slots, textures (same bytes, same transforms) and emissive
// colour through Kiln's FBX writer and reader, and `assimp info` (when installed) reads the file.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decode, encode } from "./index";
import type { InterchangeScene, InterchangeTexture, TextureSlot } from "./interchange";
import { ASSETS, readAsset } from "../../../tests/fixtures/assets/read";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";

const dir = mkdtempSync(join(tmpdir(), "kiln-fbx-assets-"));

const close = (a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined, eps: number) => {
  expect(a?.length).toBe(b?.length);
  for (let i = 0; i < (a?.length ?? 0); i++) if (Math.abs(a![i] - b![i]) > eps) expect([i, a![i]]).toEqual([i, b![i]]);
};
const transform = (t: InterchangeTexture | undefined) => t && { ...t, offset: t.offset?.map((v) => expect.closeTo(v, 9)), scale: t.scale?.map((v) => expect.closeTo(v, 9)), rotation: t.rotation === undefined ? undefined : expect.closeTo(t.rotation, 9) };

/** What FBX carries of issue 15's asset data, compared node by node (FBX files list nodes in their own order). */
function expectSameFbxData(src: InterchangeScene, dst: InterchangeScene) {
  expect(dst.nodes.map((n) => n.name).sort()).toEqual(src.nodes.map((n) => n.name).sort());
  /** The material (name, or null) of each triangle of a node's mesh: slots compared by what they paint. */
  const triangleMaterials = (scene: InterchangeScene, n: InterchangeScene["nodes"][number]) => {
    const m = scene.meshes[n.mesh!];
    const name = (k: number | null | undefined) => (k === null || k === undefined ? null : scene.materials[k].name);
    const groups = m.groups ?? [{ start: 0, count: m.indices.length }];
    return groups.flatMap((g, i) => Array<string | null>(g.count / 3).fill(m.groups ? name(n.materials?.[i]) : name(n.material)));
  };
  for (const n of src.nodes) {
    const d = dst.nodes.find((x) => x.name === n.name)!;
    if (n.mesh === undefined) continue;
    expect(triangleMaterials(dst, d), n.name).toEqual(triangleMaterials(src, n));
    expect(d.extras).toEqual(n.extras);
    const m = src.meshes[n.mesh], dm = dst.meshes[d.mesh!];
    close(dm.positions, m.positions, 1e-6);
    expect(Array.from(dm.indices)).toEqual(Array.from(m.indices));
    expect(dm.uvs?.length ?? 0).toBe(m.uvs?.length ?? 0);
    (m.uvs ?? []).forEach((uv, s) => close(dm.uvs![s], uv, 1e-6));
    close(dm.colors, m.colors, 1 / 255);
    // Groups stay, but neighbours painted with the same material read back as one.
    if (new Set(n.materials).size === n.materials?.length) expect(dm.groups).toEqual(m.groups);
  }
  // Nodes sharing a mesh and its slot materials share it still (other sharers get a copy, see fbx.ts).
  const key = (s: InterchangeScene, n: InterchangeScene["nodes"][number]) => `${n.mesh}/${triangleMaterials(s, n).join(",")}`;
  for (const a of src.nodes) for (const b of src.nodes) if (a.mesh !== undefined && b.mesh !== undefined && key(src, a) === key(src, b)) expect(dst.nodes.find((n) => n.name === a.name)!.mesh).toBe(dst.nodes.find((n) => n.name === b.name)!.mesh);
  for (const m of src.materials) {
    const d = dst.materials.find((x) => x.name === m.name)!;
    expect(Object.keys(d.textures ?? {}).sort()).toEqual(Object.keys(m.textures ?? {}).sort());
    for (const [slot, t] of Object.entries(m.textures ?? {})) {
      const dt = d.textures![slot as TextureSlot]!;
      expect({ ...dt, image: dst.images![dt.image].name }).toEqual({ ...transform(t), image: src.images![t.image].name });
    }
    close(d.emissive, m.emissive, 1e-6);
  }
  const bytes = (s: InterchangeScene) => (s.images ?? []).map((i) => [i.name, i.mimeType, Buffer.from(i.bytes).toString("base64")]).sort();
  expect(bytes(dst)).toEqual(bytes(src));
}

describe("real Blender glTF assets through Kiln's FBX codec", () => {
  it.each(ASSETS)("%s keeps its UVs, colours, slots and textures", async (name) => {
    const src = (await readAsset(name)).scene;
    const enc = await encode("fbx", src, name);
    const file = join(dir, `${name}.fbx`);
    writeFileSync(file, enc.files[0].bytes);
    const info = assimpInfo(file);
    if (info) expect(info.exitCode, info.output).toBe(0);
    expect(enc.warnings.filter((w) => /UV sets|vertex colours|material slots|textures of|emissive colour/.test(w))).toEqual([]);
    const dst = await decode("fbx", new Map([[`${name}.fbx`, enc.files[0].bytes]]), `${name}.fbx`);
    expect(dst.warnings).toEqual([]); // skins and morph targets are read too (fbx-deformers.test.ts checks them)
    expectSameFbxData(src, dst.scene);
  });
});
