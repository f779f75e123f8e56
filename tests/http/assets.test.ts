/**
 * Real assets over HTTP (issue 15): Blender's own glTF fixtures imported with import_asset show
 * their UV sets, colours, material slots, textures, skins and morph targets in get_scene and
 * list_objects; transferred Blender → Unity as glTF they keep them, and the file passes the
 * Khronos validator; as USDA the skinned and morphed ones keep their joints and morph targets
 * (also read again by import_asset), and a real asset given custom properties keeps them; as FBX a textured asset keeps its UV sets and textures;
 * create_material takes texture files from the project, path-confined.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateBytes } from "gltf-validator";
import { startServer, ROOT, type KilnServer } from "../helpers/server";
import { encode } from "../../server/pipeline/formats";
import { readAsset } from "../fixtures/assets/read";

let kiln: KilnServer;
let dir: string;
beforeAll(async () => {
  kiln = await startServer();
  dir = path.join(kiln.home, "assets", "fixtures");
  cpSync(path.join(ROOT, "tests/fixtures/assets"), dir, { recursive: true });
});
afterAll(async () => { await kiln?.stop(); });

type Obj = { name: string; asset?: Record<string, any>; material: string | null };
const objects = async (app: string) => (await kiln.ok("get_scene", { app })).objects as Obj[];

describe("real assets through import_asset and transfer_asset", () => {
  it("imports a skinned cylinder, a morphed cube, material slots and a textured plane, and shows what they carry", async () => {
    for (const f of ["03_skinned_cylinder", "01_morphed_cube", "22_material_slot_not_merge", "09_texture_transform", "12_orm_two_uvmaps"])
      await kiln.ok("import_asset", { app: "blender", path: path.join(dir, f, `${f}.gltf`) });
    const all = await objects("blender");
    const skinned = all.find((o) => o.asset?.skin)!;
    expect(skinned.asset!.skin.joints.length).toBeGreaterThan(1);
    expect(skinned.asset!.uv_sets).toBe(1);
    expect(all.find((o) => o.asset?.morph_targets)!.asset!.morph_targets.map((t: { name: string }) => t.name)).toEqual(["Bottom", "Top"]);
    expect(all.some((o) => (o.asset?.material_slots?.length ?? 0) > 1)).toBe(true);
    expect(all.some((o) => o.asset?.uv_sets === 2)).toBe(true);
    const listed = (await kiln.ok("list_objects", { app: "blender", kind: "mesh" })).objects as Obj[];
    expect(listed.find((o) => o.name === skinned.name)!.asset!.skin).toEqual(skinned.asset!.skin);
    const materials = (await kiln.ok("get_scene", { app: "blender" })).materials as { name: string; textures?: Record<string, { image: string; scale?: number[] }> }[];
    expect(materials.some((m) => m.textures?.baseColor?.scale)).toBe(true);
    expect(materials.some((m) => m.textures?.occlusion)).toBe(true);
  });

  it("transfers the skinned cylinder Blender → Unity as glTF with its skin, in a file the Khronos validator accepts", async () => {
    const root = (await objects("blender")).find((o) => o.name.includes("Armature") || o.asset?.skin)!;
    const parentName = (await kiln.ok("get_scene", { app: "blender" })).objects.find((o: { name: string; parent: string | null }) => o.name === root.name).parent ?? root.name;
    const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: parentName, format: "gltf" });
    const report = await validateBytes(new Uint8Array(readFileSync(t.file.path)));
    expect(report.issues.numErrors).toBe(0);
    const unity = await objects("unity");
    const skinned = unity.find((o) => o.asset?.skin)!;
    expect(skinned.asset!.skin.joints.length).toBe((await objects("blender")).find((o) => o.asset?.skin)!.asset!.skin.joints.length);
  });

  it("transfers the skinned cylinder and the morphed cube Blender → Unity as USDA (UsdSkel), keeping joints and morph targets, and imports that file again", async () => {
    const scene = async (app: string) => (await kiln.ok("get_scene", { app })).objects as (Obj & { parent: string | null })[];
    const blender = await scene("blender");
    const top = (o: Obj) => {
      let at = blender.find((x) => x.name === o.name)!;
      while (at.parent) at = blender.find((x) => x.name === at.parent)!;
      return at.name;
    };
    const skinned = blender.find((o) => o.asset?.skin)!, morphed = blender.find((o) => o.asset?.morph_targets)!;
    const jointNames = (o: Obj) => o.asset!.skin.joints.map((j: string) => j.replace(/\.\d+$|_\d+$/, ""));
    for (const src of [skinned, morphed]) {
      const before = new Set((await objects("unity")).map((o) => o.name));
      const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: top(src), format: "usd" });
      expect(t.file.path).toMatch(/\.usda$/);
      expect(t.warnings.filter((w: string) => /usd: .*(skin|morph|joint|custom propert)/.test(w))).toEqual([]);
      const usda = readFileSync(t.file.path, "utf8");
      for (const part of src === skinned ? [/^\s*def Skeleton "/m, /primvars:skel:jointIndices/] : [/def BlendShape "Top"/]) expect(usda).toMatch(part);
      const arrived = (await objects("unity")).filter((o) => !before.has(o.name));
      await kiln.ok("import_asset", { app: "godot", path: t.file.path });
      for (const got of [arrived, await objects("godot")]) {
        if (src === skinned) {
          const o = got.find((x) => x.asset?.skin)!;
          expect(jointNames(o)).toEqual(jointNames(src));
        } else {
          const o = got.find((x) => x.asset?.morph_targets)!;
          expect(o.asset!.morph_targets).toEqual(src.asset!.morph_targets);
        }
      }
    }
  });

  it("transfers custom properties of objects and materials Blender → Unity as USDA, and imports that file again", async () => {
    // No fixture has custom properties of its own: a real one gets some, written as a GLB with Kiln's glTF writer.
    const { scene } = await readAsset("22_material_slot_not_merge");
    scene.nodes.forEach((n, i) => (n.extras = { tag: `node ${i}`, nested: { list: [1, 2.5], flags: [true, false], none: null, mixed: [1, "a"] }, 'key " \n ü': "value \\ 字", big: 2 ** 60 }));
    scene.materials.forEach((m) => (m.extras = { finish: m.name, weights: [0.5, 1] }));
    const file = path.join(dir, "props.glb");
    writeFileSync(file, (await encode("gltf", scene, "props")).files[0].bytes);
    const root = (await kiln.ok("import_asset", { app: "blender", path: file })).imported.root;
    // Properties as canonical JSON (keys sorted), one per object or material that has them.
    const canon = (v: unknown) => JSON.stringify(v, (_, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));
    const props = async (app: string, names?: Set<string>) => {
      const s = await kiln.ok("get_scene", { app });
      const objs = (s.objects as (Obj & { properties?: unknown })[]).filter((o) => !names || !names.has(o.name));
      const mats = (s.materials as { name: string; properties?: unknown }[]).filter((m) => !names || !names.has(`material ${m.name}`));
      return { objects: objs.flatMap((o) => (o.asset?.properties ?? o.properties ? [canon(o.asset?.properties ?? o.properties)] : [])).sort(), materials: mats.flatMap((m) => (m.properties ? [canon(m.properties)] : [])).sort(), all: new Set([...objs.map((o) => o.name), ...mats.map((m) => `material ${m.name}`)]) };
    };
    const want = await props("blender");
    expect(want.objects.length).toBeGreaterThan(0);
    expect(want.materials.length).toBeGreaterThan(0);
    let usda = "";
    for (const app of ["unity", "godot"]) {
      const before = (await props(app)).all;
      if (app === "unity") {
        const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: root, format: "usd" });
        expect(t.warnings.filter((w: string) => /custom propert/.test(w))).toEqual([]);
        expect(readFileSync(t.file.path, "utf8")).toContain("dictionary userProperties = {");
        usda = t.file.path;
      } else await kiln.ok("import_asset", { app: "godot", path: usda });
      const got = await props(app, before);
      expect(got.objects, `${app} objects`).toEqual(want.objects);
      expect(got.materials, `${app} materials`).toEqual(want.materials);
    }
  });

  it("transfers a textured asset with two UV sets as FBX, keeping its UV sets and textures", async () => {
    const root = (await objects("blender")).find((o) => o.asset?.uv_sets === 2)!;
    const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: root.name, format: "fbx" });
    expect(t.warnings.filter((w: string) => /fbx: (textures|UV sets|material slots|vertex colours) of/.test(w))).toEqual([]);
    const moved = (await objects("unity")).filter((o) => o.asset?.uv_sets === 2);
    expect(moved.length).toBeGreaterThan(0);
    const materials = (await kiln.ok("get_scene", { app: "unity" })).materials as { name: string; textures?: Record<string, { image: string; uv: number }> }[];
    const used = materials.find((m) => m.name === moved[0].material)!;
    expect(used.textures?.occlusion).toMatchObject({ uv: 1, image: expect.stringMatching(/^image\/[0-9a-f]{64}$/) });
  });

  it.each(["obj", "usd"])("transfers the textured plane Blender → Unity as %s with its UVs and texture, images beside the file, and imports that file again", async (format) => {
    const root = (await objects("blender")).find((o) => o.name === "09_texture_transform" || o.name === "Plane")!;
    const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: root.name, format });
    const images = (t.side_files as { path: string }[]).filter((f) => f.path.endsWith(".png"));
    expect(images).toHaveLength(1);
    expect(path.dirname(images[0].path)).toBe(path.dirname(t.file.path));
    const textured = async (app: string) => {
      const scene = await kiln.ok("get_scene", { app });
      const plane = (scene.objects as Obj[]).find((o) => o.name.startsWith("Plane") && o.asset?.uv_sets === 1);
      const material = (scene.materials as { name: string; textures?: Record<string, { image: string }> }[]).find((m) => m.name === plane?.material);
      return material?.textures?.baseColor?.image;
    };
    expect(await textured("unity")).toMatch(/^image\//);
    const again = await kiln.ok("import_asset", { app: "godot", path: t.file.path });
    expect(again.side_files).toContain(images[0].path);
    expect(await textured("godot")).toBe(await textured("unity"));
  });

  it("create_material takes a PNG from the project for its base colour, and refuses paths outside and non-images", async () => {
    const png = path.join(dir, "09_texture_transform", "09_tiny_grid.png");
    const r = await kiln.ok("create_material", { app: "godot", name: "Grid", color: { r: 1, g: 1, b: 1, a: 1 }, textures: { base_color: { path: png, scale: [2, 2] } } });
    expect(r.material.textures.baseColor).toMatchObject({ uv: 0, scale: [2, 2] });
    expect(r.material.textures.baseColor.image).toMatch(/^image\/[0-9a-f]{64}$/);
    const before = JSON.stringify(await kiln.ok("get_scene", { app: "godot" }));
    const outside = await kiln.call("create_material", { app: "godot", name: "Bad", color: { r: 1, g: 1, b: 1, a: 1 }, textures: { base_color: { path: "/etc/hostname" } } });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toMatchObject({ code: "PATH_NOT_ALLOWED", details: { field: "textures.base_color.path" } });
    writeFileSync(path.join(dir, "not-an-image.png"), "hello");
    const text = await kiln.call("create_material", { app: "godot", name: "Bad", color: { r: 1, g: 1, b: 1, a: 1 }, textures: { normal: { path: path.join(dir, "not-an-image.png") } } });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe("UNSUPPORTED_IMAGE");
    expect(JSON.stringify(await kiln.ok("get_scene", { app: "godot" }))).toBe(before);
  });
});
