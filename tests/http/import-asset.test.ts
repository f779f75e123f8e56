/**
 * import_asset over HTTP: files inside the project folder or <KILN_HOME>/assets come in (format
 * from the extension, side files such as an OBJ's .mtl included); anything else — a path outside,
 * a symlink leading outside, a side file outside — is refused with 400 PATH_NOT_ALLOWED, a missing
 * file is 404, a broken file is 400 ASSET_UNREADABLE, and none of them changes the scene.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
let assets: string;
beforeAll(async () => {
  kiln = await startServer();
  assets = path.join(kiln.home, "assets");
  mkdirSync(path.join(assets, "mine"), { recursive: true });
});
afterAll(async () => { await kiln?.stop(); });

const sceneJson = async () => JSON.stringify(await Promise.all(["blender", "unity", "godot"].map((app) => kiln.ok("get_scene", { app }))));

describe("import_asset", () => {
  it("imports a transferred file again, into another app", async () => {
    await kiln.ok("create_gameobject", { app: "blender", name: "Lamp Post", type: "Cylinder", position: { z: 1 } });
    const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: "Lamp Post", format: "gltf" });
    const r = await kiln.ok("import_asset", { app: "Godot", path: t.file.path });
    expect(r).toMatchObject({ app: "godot", format: "gltf", imported: { root: "Lamp Post", objects: 1, triangles: t.imported.triangles } });
    const post = (await kiln.ok("get_scene", { app: "godot" })).objects.find((o: { name: string }) => o.name === "Lamp Post");
    expect(post.position).toEqual({ x: 0, y: 1, z: 0 });
  });

  it("reads an OBJ with its material library, several objects grouped under the file's name", async () => {
    const dir = path.join(assets, "mine");
    writeFileSync(path.join(dir, "pair.mtl"), "newmtl Green\nKd 0 1 0\n");
    writeFileSync(path.join(dir, "pair.obj"), [
      "mtllib pair.mtl", "o A", "v 0 0 0", "v 1 0 0", "v 0 1 0", "usemtl Green", "f 1 2 3",
      "o B", "v 0 0 1", "v 1 0 1", "v 0 1 1", "v 1 1 1", "f 4 5 6 7",
    ].join("\n"));
    const r = await kiln.ok("import_asset", { app: "unity", path: path.join(dir, "pair.obj") });
    expect(r.imported).toMatchObject({ root: "pair", objects: 3, triangles: 3, materials: 1 });
    expect(r.side_files).toEqual([path.join(dir, "pair.mtl")]);
    expect(r.warnings).toContain("obj: polygons with more than 3 corners triangulated as fans");
    const scene = await kiln.ok("get_scene", { app: "unity" });
    expect(scene.objects.find((o: { name: string }) => o.name === "A")).toMatchObject({ parent: "pair", material: "Green" });
    expect(scene.materials.find((m: { name: string }) => m.name === "Green").color).toEqual({ r: 0, g: 1, b: 0, a: 1 });
  });

  const refusals: [string, () => Record<string, unknown>, number, string][] = [
    ["a path outside both folders", () => ({ path: "/etc/hostname" }), 400, "PATH_NOT_ALLOWED"],
    ["a relative path climbing out", () => ({ path: "../../../etc/hostname" }), 400, "PATH_NOT_ALLOWED"],
    ["a symlink leading outside", () => {
      symlinkSync("/etc/hostname", path.join(assets, "mine", "escape.obj"));
      return { path: path.join(assets, "mine", "escape.obj") };
    }, 400, "PATH_NOT_ALLOWED"],
    ["an OBJ whose material library is outside", () => {
      writeFileSync(path.join(assets, "mine", "sneaky.obj"), "mtllib ../../../../../../etc/hostname\no A\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
      return { path: path.join(assets, "mine", "sneaky.obj") };
    }, 400, "PATH_NOT_ALLOWED"],
    ["a missing file", () => ({ path: path.join(assets, "mine", "nothing.glb") }), 404, "FILE_NOT_FOUND"],
    ["a folder", () => ({ path: path.join(assets, "mine") , format: "gltf" }), 400, "NOT_A_FILE"],
    ["an unknown extension", () => ({ path: "package.json" }), 400, "UNSUPPORTED_FORMAT"],
    ["an unknown format", () => ({ path: "package.json", format: "blend" }), 400, "UNSUPPORTED_FORMAT"],
    ["a file that does not start like its format", () => {
      writeFileSync(path.join(assets, "mine", "broken.glb"), "not a glb at all");
      return { path: path.join(assets, "mine", "broken.glb") };
    }, 400, "FORMAT_MISMATCH"],
    ["a broken file", () => {
      writeFileSync(path.join(assets, "mine", "broken.gltf"), "{ not json");
      return { path: path.join(assets, "mine", "broken.gltf") };
    }, 400, "ASSET_UNREADABLE"],
  ];
  it.each(refusals)("refuses %s and changes nothing", async (_label, params, status, code) => {
    const before = await sceneJson();
    const r = await kiln.call("import_asset", { app: "blender", ...params() });
    expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([status, code]);
    expect(await sceneJson()).toBe(before);
  });
});
