/**
 * Two live applications at once (issue: "Live Godot"): real Blender 3.4 and the Godot 3.2 editor,
 * both headless and connected to one Kiln; transfer_asset from live Blender (its own glTF exporter)
 * into live Godot lands in Godot's edited scene and in the .tscn it saves, with the right transform.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { blenderConnection, close, startLiveBlender, until, type LiveBlender } from "./live";
import { dumpSavedScene, godotConnection, godotWorlds, hasGodotServer, startLiveGodot, type LiveGodot } from "./live-godot";

let kiln: KilnServer | undefined;
let blender: LiveBlender | undefined;
let godot: LiveGodot | undefined;

afterAll(async () => {
  await Promise.all([blender?.stop(), godot?.stop()]);
  await kiln?.stop();
});

describe.skipIf(!hasGodotServer())("live Blender and live Godot together", () => {
  it("transfer_asset Blender -> Godot between the two live apps lands in Godot's saved scene", async () => {
    const project = mkdtempSync(path.join(tmpdir(), "kiln-two-live-"));
    const game = path.join(project, "game");
    kiln = await startServer({ cwd: project });
    blender = startLiveBlender(kiln, { cwd: project });
    godot = startLiveGodot(kiln, game, { cwd: project });
    await until(async () => (await blenderConnection(kiln!)) === "live" && (await godotConnection(kiln!)) === "live", 60_000, "both apps to connect");

    await kiln.ok("create_gameobject", { app: "blender", name: "Crate", type: "Cube", position: { x: 0, y: 0, z: 1 }, rotation: { x: 0, y: 0, z: 90 }, scale: { x: 0.5, y: 0.5, z: 0.5 } });
    await kiln.ok("create_material", { app: "blender", name: "Wood", color: { r: 0.6, g: 0.4, b: 0.2, a: 1 } });
    await kiln.ok("set_material", { app: "blender", target: "Crate", material: "Wood" });
    const r = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "godot", asset: "Crate", format: "gltf" });
    expect(r.warnings.join("\n")).toContain("live blender's own GLTF exporter");
    // Godot's own importer imported the file into the project too.
    const resource = r.warnings.join("\n").match(/by its own importer as (res:\/\/\S+)/)?.[1];
    expect(resource).toBe(`res://kiln_imports/${r.transfer_id}/${path.basename(r.file.path)}`);
    expect(existsSync(path.join(game, resource!.slice(6) + ".import"))).toBe(true);
    const scene = await kiln.ok("get_scene", { app: "godot" });
    const crate = scene.objects.find((o: any) => o.name === r.imported.root);
    // Blender's Z-up (0, 0, 1) is Godot's Y-up (0, 1, 0).
    expect(crate.position.y).toBeCloseTo(1, 4);
    expect(Math.abs(crate.position.x) + Math.abs(crate.position.z)).toBeLessThan(1e-4);

    const saved = (await kiln.ok("save_app_file", { app: "godot", path: "game/transferred.tscn" })).file;
    const view = dumpSavedScene(game, saved);
    const worlds = godotWorlds(scene.objects);
    for (const o of scene.objects) {
      const g = view.objects.find((x: any) => x.name === o.name);
      expect(g, o.name).toBeTruthy();
      expect(close(g.matrix, worlds.get(o.name)!, 1e-5), `${o.name} world matrix`).toBe(true);
    }
    const mesh = view.objects.find((x: any) => x.name === r.imported.root && x.class === "MeshInstance")
      ?? view.objects.find((x: any) => x.parent === r.imported.root && x.class === "MeshInstance");
    expect(mesh?.mesh).toBe("ArrayMesh");
    expect(mesh.color.slice(0, 3).map((c: number) => Math.round(c * 10) / 10)).toEqual([0.6, 0.4, 0.2]);
  });
});
