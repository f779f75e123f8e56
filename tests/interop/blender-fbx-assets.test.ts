/**
 * Real Blender 3.4 reads Kiln's FBX of the real Blender assets (tests/fixtures/assets) with the
 * same asset data as the original glTF: per mesh object the same UV layers (names and every
 * loop's UV), colour attributes (every corner's colour within 1/255), material slots (by name; an
 * empty slot arrives as Kiln's placeholder material, see fbx.ts) and the same images (pixels),
 * and `assimp info` reads each file.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { encode, type InterchangeScene } from "../../server/pipeline/formats";
import { FBX_EMPTY_SLOT } from "../../server/pipeline/formats/fbx-conventions";
import { ASSETS_DIR, readAsset } from "../fixtures/assets/read";
import { assimpInfo } from "../fixtures/formats/assimp";
import { runBlender } from "./blender";

interface Report {
  meshes: Record<string, { properties: { object: unknown; mesh: unknown; materials: Record<string, unknown> }; uv_layers: { name: string; uvs: number[][] }[]; colors: number[][][]; material_slots: (string | null)[] }>;
  images: { size: number[]; pixels: string }[];
}

const FIXTURES = ["09_texture_transform", "12_orm_two_uvmaps", "22_vertex_color", "22_material_slot_not_merge", "08_combine_orm", "10_custom_normals"];
const dir = mkdtempSync(path.join(tmpdir(), "kiln-fbx-assets-"));

describe.each(FIXTURES)("Blender imports Kiln's FBX of %s", (name) => {
  it("with the UV layers, colours, material slots and images of the original glTF", async () => {
    const enc = await encode("fbx", (await readAsset(name)).scene, name);
    const file = path.join(dir, `${name}.fbx`);
    writeFileSync(file, enc.files[0].bytes);
    const info = assimpInfo(file);
    expect(info, "assimp is installed").toBeTruthy();
    expect(info!.exitCode, info!.output).toBe(0);
    const original = runBlender<Report>("mesh_data_report.py", [path.join(ASSETS_DIR, name, `${name}.gltf`)]);
    const kiln = runBlender<Report>("mesh_data_report.py", [file]);
    expect(Object.keys(kiln.meshes).sort()).toEqual(Object.keys(original.meshes).sort());
    for (const [object, want] of Object.entries(original.meshes)) {
      const got = kiln.meshes[object];
      // Materials by their properties only (names differ where Blender's glTF importer copies them, below).
      const props = (p: Report["meshes"][string]["properties"]) => ({ ...p, materials: Object.entries(p.materials).filter(([n]) => !n.startsWith(FBX_EMPTY_SLOT)).map(([, m]) => JSON.stringify(m)).sort() });
      expect(props(got.properties), object).toEqual(props(want.properties));
      expect(got.uv_layers, object).toEqual(want.uv_layers);
      // Blender's glTF importer gives objects with vertex colours their own copies of the
      // materials (other names): for those, which slots are filled is what must match.
      const slots = got.material_slots.map((s) => (s?.startsWith(FBX_EMPTY_SLOT) ? null : s));
      if (want.colors.length) expect(slots.map((s) => s !== null), object).toEqual(want.material_slots.map((s) => s !== null));
      else expect(slots, object).toEqual(want.material_slots);
      expect(got.colors.length, object).toBe(want.colors.length);
      want.colors.forEach((layer, k) => layer.forEach((c, i) => c.forEach((v, ch) => expect(Math.abs(got.colors[k][i][ch] - v), `${object} colour ${i}`).toBeLessThanOrEqual(1))));
    }
    // Kiln's FBX may hold more images (metallic and roughness split out for other tools), never fewer.
    const have = new Set(kiln.images.map((i) => i.pixels));
    for (const img of original.images) expect(have.has(img.pixels), `image ${img.size.join("x")} ${img.pixels}`).toBe(true);
  });
});

describe("Blender imports Kiln's FBX custom properties", () => {
  it("as the same custom properties of object, mesh and material as from Kiln's glTF", async () => {
    const extras = { label: "crate", count: 3, weight: 2.5, solid: true };
    const scene: InterchangeScene = {
      nodes: [{ name: "Crate", parent: null, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1], mesh: 0, material: 0, extras }],
      meshes: [{ name: "Box", positions: Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), normals: Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1), indices: Uint32Array.of(0, 1, 2), extras: { lod: 2 } }],
      materials: [{ name: "Wood", color: [1, 1, 1, 1], metallic: 0, roughness: 1, extras: { grain: "oak" } }],
      animations: [],
    };
    const reports = [];
    for (const format of ["gltf", "fbx"] as const) {
      const enc = await encode(format, scene, `props-${format}`);
      const file = path.join(dir, enc.files[0].name);
      writeFileSync(file, enc.files[0].bytes);
      reports.push(runBlender<Report>("mesh_data_report.py", [file]).meshes.Crate.properties);
    }
    expect(reports[0]).toEqual({ object: { ...extras, solid: 1 }, mesh: { lod: 2 }, materials: { Wood: { grain: "oak" } } });
    expect(reports[1]).toEqual(reports[0]);
  });
});
