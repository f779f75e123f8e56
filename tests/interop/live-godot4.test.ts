/**
 * Live Godot 4 (issue: "Live Godot"): the same scenario as live-godot.test.ts against the Godot 4 port
 * of the plugin (bridges/godot4), run only when KILN_GODOT4 names a Godot 4 binary. None exists on
 * the CI machines (Debian ships Godot 3.2 only), so there this test reports itself skipped by name
 * and the Godot 4 port is unverified (README, "Live Godot").
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer } from "../helpers/server";
import { until } from "./live";
import { GODOT4_CLASSES, README_STEPS, dumpSavedScene, expectSameGodotScene, godotConnection, startLiveGodot, writeRecipe, type LiveGodot } from "./live-godot";

const GODOT4 = process.env.KILN_GODOT4;
const DRIVER = path.join(ROOT, "tests/interop/godot4/driver.gd");
const DUMP = path.join(ROOT, "bridges/godot4/dump_scene.gd");

if (!GODOT4) console.log("live Godot 4: skipped, KILN_GODOT4 does not name a Godot 4 binary (the Godot 4 plugin is not verified here)");

let kiln: KilnServer | undefined;
let godot: LiveGodot | undefined;

afterEach((ctx) => {
  if (ctx.task.result?.state === "fail") console.log(`--- godot 4 output ---\n${godot?.output().slice(-6000)}`);
});

afterAll(async () => {
  await godot?.stop();
  await kiln?.stop();
});

describe.skipIf(!GODOT4)("live Godot 4 (skipped: KILN_GODOT4 does not name a Godot 4 binary)", () => {
  it("connects, builds the README scene, saves a .tscn a second Godot 4 loads the same, takes edits and rolls back", async () => {
    const project = mkdtempSync(path.join(tmpdir(), "kiln-live-godot4-"));
    const game = path.join(project, "game");
    writeRecipe(project, "readme-scene", README_STEPS);
    kiln = await startServer({ cwd: project });
    godot = startLiveGodot(kiln, game, { cwd: project, env: { KILN_GODOT: GODOT4! }, driver: DRIVER, dump: DUMP });
    await until(async () => (await godotConnection(kiln!)) === "live", 60_000, "Godot 4 to connect");
    const same = async () => expectSameGodotScene(await kiln!.ok("get_scene", { app: "godot" }), await godot!.command("dump"), GODOT4_CLASSES);

    expect((await kiln.ok("run_recipe", { recipe: "readme-scene" })).status).toBe("succeeded");
    await same();
    const saved = (await kiln.ok("save_app_file", { app: "godot", path: "game/demo.tscn" })).file;
    expectSameGodotScene(await kiln.ok("get_scene", { app: "godot" }), dumpSavedScene(game, saved, [GODOT4!, "--headless"], DUMP), GODOT4_CLASSES);

    await kiln.ok("create_gameobject", { app: "godot", name: "Gone", type: "Empty" });
    await kiln.ok("create_gameobject", { app: "godot", name: "Old", type: "Empty" });
    await godot.command("artist");
    await until(async () => {
      const names = (await kiln!.ok("get_scene", { app: "godot" })).objects.map((o: any) => o.name);
      return names.includes("Hand") && names.includes("Renamed") && !names.includes("Gone");
    }, 5000, "the editor edits in Kiln");

    const atBegin = await kiln.ok("get_scene", { app: "godot" });
    await kiln.ok("begin_transaction", { name: "godot 4" });
    await kiln.ok("create_gameobject", { app: "godot", name: "T1", type: "Sphere" });
    await godot.command("artist2");
    await until(async () => (await kiln!.ok("get_scene", { app: "godot" })).objects.some((o: any) => o.name === "HandMade"), 5000, "the edit in Kiln");
    await kiln.ok("rollback_transaction", {});
    expect(await kiln.ok("get_scene", { app: "godot" })).toEqual(atBegin);
    await same();
  });
});
