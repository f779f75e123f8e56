/**
 * Real Blender 3.4 reads Kiln's OBJ + MTL of the real Blender assets (tests/fixtures/assets): each
 * fixture is imported into Kiln's Blender scene, exported from it as OBJ (as transfer_asset does),
 * and Blender's OBJ importers find the UV layer, the material slots with their triangles, the
 * texture images (loaded, with pixels) wired to the sockets they feed, and (the C++ importer,
 * which reads `v x y z r g b`) the vertex colours, linear within 2/255 of Kiln's.
 *
 * USDA: this Blender build has no USD (bpy.app.build_options.usd is False, and Debian's 3.4 is
 * built without it), so the USDA half runs only where Blender has USD; three's USDLoader reads
 * Kiln's USDA in server/pipeline/formats/text-assets.test.ts meanwhile.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyOperation } from "../../server/scene/apply";
import { applyChanges } from "../../server/scene/changes";
import { initialState } from "../../server/scene/state";
import type { SceneEntity } from "../../server/scene/types";
import { exportAsset } from "../../server/pipeline/export-scene";
import { decode, encode, type InterchangeScene, type TransferFormat } from "../../server/pipeline/formats";
import { planImport } from "../../server/pipeline/import-scene";
import { ASSETS, readAsset } from "../fixtures/assets/read";
import { runBlender } from "./blender";

interface Report {
  meshes: Record<string, { uv_layers: string[]; color_attributes: [string, string, number[]][]; material_slots: (string | null)[]; triangles: number; slot_triangles: number[]; colors: number[][] }>;
  materials: Record<string, [string, string[]][]>;
  images: string[];
}

const dir = mkdtempSync(path.join(tmpdir(), "kiln-text-assets-"));
const blenderHasUsd = spawnSync("blender", ["-b", "--factory-startup", "--python-expr", "import bpy; print('USD=' + str(bpy.app.build_options.usd))"], { encoding: "utf8" }).stdout?.includes("USD=True");

/** Kiln's Blender scene holding the fixture, exported as `format` and written to a folder of its own. */
async function writeViaScene(name: string, format: TransferFormat) {
  const state = new Map(initialState()) as Map<string, SceneEntity>;
  const src = (await readAsset(name)).scene;
  const out = applyOperation(state, { tool: "import_asset", app: "blender", params: { plan: planImport("blender", src, name).plan } });
  applyChanges(state, out.changes);
  const root = (out.result as { roots: string[] }).roots[0];
  const enc = await encode(format, exportAsset(state, "blender", root, { applyModifiers: true, includeAnimations: true }).scene, name);
  const folder = path.join(dir, format, name);
  mkdirSync(folder, { recursive: true });
  for (const f of enc.files) writeFileSync(path.join(folder, f.name), f.bytes);
  const back = (await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name)).scene;
  return { main: path.join(folder, enc.files[0].name), images: enc.files.filter((f) => /\.(png|jpg)$/.test(f.name)).map((f) => f.name).sort(), back };
}

/** Per mesh node: UV set count, slot material names (one per distinct material, in first use) and their triangles. */
function expected(scene: InterchangeScene) {
  return Object.fromEntries(scene.nodes.flatMap((n) => {
    if (n.mesh === undefined) return [];
    const m = scene.meshes[n.mesh];
    const groups = m.groups ?? [{ start: 0, count: m.indices.length }];
    const slots = m.groups ? n.materials ?? [] : [n.material];
    const triangles = new Map<string, number>();
    groups.forEach((g, k) => {
      const material = slots[k] === undefined || slots[k] === null ? undefined : scene.materials[slots[k]!].name;
      if (material !== undefined) triangles.set(material, (triangles.get(material) ?? 0) + g.count / 3);
    });
    const assigned = [...triangles.values()].reduce((a, b) => a + b, 0);
    return [[n.name, { uv_layers: m.uvs?.length ?? 0, material_slots: [...triangles.keys()], slot_triangles: [...triangles.values()], unassigned: m.indices.length / 3 - assigned }]];
  }));
}

describe.each(ASSETS)("Blender imports Kiln's OBJ of %s", (name) => {
  it("with its UV layer, material slots, images and vertex colours", async () => {
    const { main, images, back } = await writeViaScene(name, "obj");
    const legacy = runBlender<Report>("text_asset_report.py", ["import_scene.obj", main]);
    const modern = runBlender<Report>("text_asset_report.py", ["wm.obj_import", main]);
    const want = expected(back);
    for (const report of [legacy, modern]) {
      // Blender gives faces without a usemtl a "Default OBJ" material; they are the unassigned ones.
      const seen = Object.fromEntries(Object.entries(report.meshes).map(([k, m]) => {
        const keep = m.material_slots.map((s, i) => i).filter((i) => m.material_slots[i] !== "Default OBJ");
        const slot_triangles = keep.map((i) => m.slot_triangles[i]);
        return [k, { uv_layers: m.uv_layers.length, material_slots: keep.map((i) => m.material_slots[i]), slot_triangles, unassigned: m.triangles - slot_triangles.reduce((a, b) => a + b, 0) }];
      }));
      // The C++ importer puts faces without a material into the object's first slot, if it has one.
      const view = report === legacy ? want : Object.fromEntries(Object.entries(want).map(([k, w]) => [k, w.unassigned && w.slot_triangles.length ? { ...w, slot_triangles: [w.slot_triangles[0] + w.unassigned, ...w.slot_triangles.slice(1)], unassigned: 0 } : w]));
      expect(seen).toEqual(view);
    }
    // The Python importer loads only map_Kd, map_Bump and map_Ke images; the C++ one every image.
    expect(legacy.images.every((i) => images.includes(i))).toBe(true);
    expect(modern.images).toEqual(images);
    // The sockets each image feeds, by the C++ importer (the Python one skips Pr/Pm maps).
    for (const m of back.materials) {
      const feeds = (modern.materials[m.name] ?? []).flatMap(([, to]) => to).sort();
      const t = m.textures ?? {};
      const wantFeeds = [
        ...(t.baseColor ? ["BSDF_PRINCIPLED:Base Color"] : []), ...(t.emissive ? ["BSDF_PRINCIPLED:Emission"] : []),
        ...(t.metallicRoughness ? ["BSDF_PRINCIPLED:Metallic", "BSDF_PRINCIPLED:Roughness"] : []), ...(t.normal ? ["NORMAL_MAP:Color"] : []),
      ].sort();
      expect(feeds, `material ${m.name}`).toEqual(wantFeeds);
    }
    for (const n of back.nodes) {
      const colors = n.mesh === undefined ? undefined : back.meshes[n.mesh].colors;
      const seen = modern.meshes[n.name];
      if (!colors) {
        expect(seen.color_attributes, n.name).toEqual([]);
        continue;
      }
      expect(seen.color_attributes.map(([, domain]) => domain)).toEqual(["POINT"]);
      const distinct = [...new Set(Array.from({ length: colors.length / 4 }, (_, v) => JSON.stringify([0, 1, 2].map((k) => Math.round(colors[4 * v + k] * 1000) / 1000))))].map((s) => JSON.parse(s) as number[]).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
      expect(seen.colors.length, n.name).toBe(distinct.length);
      distinct.forEach((c, k) => c.forEach((v, i) => expect(Math.abs(seen.colors[k][i] - v), `${n.name} colour ${k}`).toBeLessThanOrEqual(2 / 255)));
    }
  });
});

describe.skipIf(!blenderHasUsd).each(ASSETS)("Blender imports Kiln's USDA of %s", (name) => {
  it("with its UV layers, material slots and images", async () => {
    const { main, images, back } = await writeViaScene(name, "usd");
    const report = runBlender<Report>("text_asset_report.py", ["wm.usd_import", main]);
    const want = expected(back);
    for (const [node, w] of Object.entries(want)) {
      const seen = Object.values(report.meshes).find((m) => m.triangles === w.slot_triangles.reduce((a, b) => a + b, w.unassigned) && m.uv_layers.length === w.uv_layers);
      expect(seen, node).toBeDefined();
      expect(seen!.material_slots.length, node).toBe(w.material_slots.length);
    }
    expect(report.images).toEqual(images);
  });
});
