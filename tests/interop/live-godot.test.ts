/**
 * Live Godot (issue: "Live Godot"): the Godot 3.2 editor headless (godot3-server from Debian),
 * started with `kiln godot --headless`, connected to the running service through the bridge. What
 * Kiln says, what the editor holds, and what a second Godot loads from the saved .tscn must agree
 * after tools, hand edits through UndoRedo, restores, rollbacks, crashes and restarts.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import WebSocket, { WebSocketServer } from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";
import { appBound, close, until } from "./live";
import { GODOT3_CLASSES, README_STEPS, dumpSavedScene, expectSameGodotScene, godotConnection, hasGodotServer, startLiveGodot, writeRecipe, type LiveGodot } from "./live-godot";

let project: string;
let game: string;
let kiln: KilnServer;
let godot: LiveGodot | undefined;

const expectSameScene = (scene: any, view: any) => expectSameGodotScene(scene, view, GODOT3_CLASSES);
const sceneOf = (name?: string) => kiln.ok("get_scene", { app: "godot", ...(name ? { scene: name } : {}) });

async function waitLive(ms: number) {
  try {
    await until(async () => (await godotConnection(kiln)) === "live", ms, "Godot to connect");
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- godot ---\n${godot?.output().slice(-4000)}\n--- kiln ---\n${kiln.log().slice(-3000)}`);
  }
}

describe.skipIf(!hasGodotServer())("live Godot 3 (godot3-server headless)", () => {
  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), "kiln-live-godot-"));
    game = path.join(project, "game");
    writeRecipe(project, "readme-scene", README_STEPS);
    writeRecipe(project, "many-boxes", Array.from({ length: 300 }, (_, i) =>
      `  - { name: b${i}, tool: create_gameobject, params: { name: "B${i}", type: Cube, position: { x: ${i % 20}, y: 0, z: ${Math.floor(i / 20)} }, app: godot } }`).join("\n") + "\n");
    kiln = await startServer({ cwd: project });
    // The service loads its bridge endpoint on the first upgrade: a refused one here, so the
    // connect time measured below is the plugin's, not that one-off load.
    await new Promise((resolve) => {
      const ws = new WebSocket(`${kiln.url.replace("http", "ws")}/bridge`, { headers: { Authorization: "Bearer warm-up" } });
      ws.on("error", resolve);
      ws.on("unexpected-response", resolve);
    });
  });

  afterEach((ctx) => {
    if (ctx.task.result?.state === "fail") console.log(`--- godot output ---\n${godot?.output().slice(-6000)}`);
  });

  afterAll(async () => {
    await godot?.stop();
    await kiln?.stop();
  });

  it("Kiln first, then Godot: connected within 3 s of the editor starting", async () => {
    godot = startLiveGodot(kiln, game, { cwd: project });
    await waitLive(30_000);
    const ms = Date.now() - statSync(path.join(godot.dir, "pid")).mtimeMs;
    console.log(`live godot: connected ${ms} ms after the plugin started, ${Date.now() - godot.startedAt} ms after \`kiln godot\` was spawned (a new project: Godot imports it first)`);
    expect(ms).toBeLessThan(await appBound(godot, 3000));
    const status = (await kiln.ok("get_pipeline_status", {})).apps.find((a: any) => a.app === "godot");
    expect(status.live.app_version).toMatch(/^3\./);
    expect(status.live.file).toBe(path.join(game, "main.tscn"));
    expectSameScene(await sceneOf(), await godot.command("dump"));
  });

  it("stays connected through 75 s of idleness: Kiln's ping requests reach the script (Godot 3 hides WebSocket pings)", async () => {
    const before = (await kiln.ok("get_pipeline_status", {})).apps.find((a: any) => a.app === "godot");
    expect(before.connection).toBe("live");
    await new Promise((r) => setTimeout(r, 75_000));
    const after = (await kiln.ok("get_pipeline_status", {})).apps.find((a: any) => a.app === "godot");
    expect(after.connection).toBe("live");
    expect(after.live.session).toBe(before.live.session); // the same connection, never dropped
    expect(godot!.output()).not.toContain("has been silent");
  }, 120_000);

  it("the README scene built by tools is the edited scene, and the .tscn save_app_file writes loads back the same", async () => {
    const run = await kiln.ok("run_recipe", { recipe: "readme-scene" });
    expect(run.status).toBe("succeeded");
    const scene = await sceneOf();
    expect(scene.scene).toBe("Demo");
    expectSameScene(scene, await godot!.command("dump"));

    const saved = await kiln.ok("save_app_file", { app: "godot", path: "game/scenes/demo.tscn" });
    expect(saved.file).toBe(path.join(game, "scenes/demo.tscn"));
    const wrong = await kiln.call("save_app_file", { app: "godot", path: "game/demo.blend" });
    expect(wrong.status).toBe(400);
    expectSameScene(scene, dumpSavedScene(game, saved.file));
    // Keyframes play from an AnimationPlayer in the saved scene.
    await kiln.ok("set_keyframe", { app: "godot", target: "Child", time: 0 });
    await kiln.ok("set_keyframe", { app: "godot", target: "Child", time: 2, position: { y: 3 }, rotation: { y: 90 } });
    const child = (await sceneOf()).objects.find((o: any) => o.name === "Child");
    const animated = dumpSavedScene(game, (await kiln.ok("save_app_file", { app: "godot", path: "game/scenes/animated.tscn" })).file);
    const tracks = animated.animations.Child;
    expect(Object.keys(tracks).sort()).toEqual(["Box/Child:rotation_degrees", "Box/Child:scale", "Box/Child:translation"]);
    const v = (p: any) => [p.x, p.y, p.z];
    expect(tracks["Box/Child:translation"].map((k: any) => k[0])).toEqual(child.keyframes.map((k: any) => k.time));
    tracks["Box/Child:translation"].forEach((k: any, i: number) => expect(close(k[1], v(child.keyframes[i].position), 1e-5)).toBe(true));
    tracks["Box/Child:rotation_degrees"].forEach((k: any, i: number) => expect(close(k[1], v(child.keyframes[i].rotation), 1e-5)).toBe(true));
    // The server build has a dummy renderer: the screenshot says so (live-godot-render.test.ts renders).
    const shot = await kiln.call("take_screenshot", { app: "godot", width: 64, height: 64 });
    expect(shot.status).toBe(409);
    expect(shot.body.error.message).toMatch(/server build .*cannot render/);
  });

  it("edits made in the editor through UndoRedo reach Kiln within 500 ms; restore brings the saved .tscn back", async () => {
    await kiln.ok("create_gameobject", { app: "godot", name: "Gone", type: "Empty" });
    await kiln.ok("create_gameobject", { app: "godot", name: "Old", type: "Empty", position: { x: -3, y: 0, z: 0 } });
    const v = await kiln.ok("save_version", { name: "before the user" });
    const atVersion = (await kiln.ok("save_app_file", { app: "godot", path: "game/scenes/at-version.tscn" })).file;
    const seq = (await kiln.ok("get_history", { limit: 1 })).entries[0].seq;

    const t0 = Date.now();
    await godot!.command("artist");
    const seen = await until(async () => {
      const s = await sceneOf();
      const names = s.objects.map((o: any) => o.name);
      const box = s.objects.find((o: any) => o.name === "Box");
      return names.includes("Hand") && !names.includes("Gone") && names.includes("Renamed") && !names.includes("Old")
        && Math.abs(box.position.x - 2) < 1e-5 && s;
    }, 5000, "the four edits in Kiln");
    const ms = Date.now() - t0;
    console.log(`live godot: four editor edits visible in Kiln after ${ms} ms`);
    expect(ms).toBeLessThan(await appBound(godot!, 500));
    expect(seen.objects.find((o: any) => o.name === "Hand").position).toEqual({ x: 1, y: 2, z: 3 });
    const entries = (await kiln.ok("get_history", { limit: 50 })).entries.filter((e: any) => e.seq > seq);
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) expect(e).toMatchObject({ kind: "live", tool: "live_edit", app: "godot" });

    await kiln.ok("save_version", { name: "after the user" });
    await kiln.ok("restore_version", { version_id: v.version_id });
    expectSameScene(await sceneOf(), await godot!.command("dump"));
    const restored = (await kiln.ok("save_app_file", { app: "godot", path: "game/scenes/restored.tscn" })).file;
    const strip = (d: any) => ({ ...d, objects: [...d.objects].sort((a: any, b: any) => a.name.localeCompare(b.name)) });
    const a = strip(dumpSavedScene(game, restored)), b = strip(dumpSavedScene(game, atVersion));
    expect(a.objects.map((o: any) => o.name)).toEqual(b.objects.map((o: any) => o.name));
    a.objects.forEach((o: any, i: number) => expect(close(o.matrix, b.objects[i].matrix, 1e-5), o.name).toBe(true));
  });

  it("rollback_transaction undoes tool calls and an editor edit alike", async () => {
    const atBegin = await godot!.command("dump");
    const sceneAtBegin = await sceneOf();
    await kiln.ok("begin_transaction", { name: "live work" });
    await kiln.ok("create_gameobject", { app: "godot", name: "T1", type: "Cube" });
    await kiln.ok("set_transform", { app: "godot", target: "Box", rotation: { y: 30 } });
    await kiln.ok("create_material", { app: "godot", name: "Blue", color: { r: 0, g: 0, b: 1, a: 1 } });
    await kiln.ok("set_material", { app: "godot", target: "T1", material: "Blue" });
    await kiln.ok("delete_object", { app: "godot", target: "Child" });
    await godot!.command("artist2");
    await until(async () => (await sceneOf()).objects.some((o: any) => o.name === "HandMade"), 5000, "the editor edit in Kiln");
    expect((await kiln.ok("get_transaction_status", {})).transaction.operations).toBeGreaterThanOrEqual(6);
    await kiln.ok("rollback_transaction", {});
    const after = await godot!.command("dump");
    expect(await sceneOf()).toEqual(sceneAtBegin);
    expectSameScene(sceneAtBegin, after);
    expect(after.objects.map((o: any) => o.name).sort()).toEqual(atBegin.objects.map((o: any) => o.name).sort());
  });

  it("Kiln killed and restarted: the plugin reconnects by itself and both agree", async () => {
    await kiln.kill("SIGKILL");
    await kiln.restart();
    const t0 = Date.now();
    await until(async () => (await godotConnection(kiln)) === "live", 20_000, "Godot to reconnect");
    console.log(`live godot: reconnected ${Date.now() - t0} ms after Kiln answered again`);
    const took = Date.now() - t0;
    expect(took).toBeLessThan(await appBound(godot!, 3000));
    await kiln.ok("set_transform", { app: "godot", target: "Box", position: { z: 3 } });
    expectSameScene(await sceneOf(), await godot!.command("dump"));
  });

  it("Godot killed during a recipe: the step fails with 503, nothing half-applied; Godot back ends in Kiln's state", async () => {
    const running = kiln.call("run_recipe", { recipe: "many-boxes" });
    await until(async () => (await sceneOf()).objects.some((o: any) => o.name === "B20"), 20_000, "the recipe to be under way");
    await godot!.crash();
    const run = (await running).body.result;
    expect(run.status).toBe("failed");
    expect(run.steps.find((s: any) => s.status === "failed").error.code).toBe("APP_DISCONNECTED");
    const succeeded = run.steps.filter((s: any) => s.status === "succeeded").map((s: any) => s.result.object.name);
    const boxes = (await sceneOf()).objects.filter((o: any) => /^B\d+$/.test(o.name)).map((o: any) => o.name);
    expect(boxes.sort()).toEqual(succeeded.sort());
    expect(await godotConnection(kiln)).toBe("disconnected");
    const kept = await sceneOf();

    // The restarted editor opens main.tscn as saved at the start: Kiln's state is pushed to it.
    godot = startLiveGodot(kiln, game, { cwd: project });
    await waitLive(30_000);
    expect(await sceneOf()).toEqual(kept);
    expectSameScene(kept, await godot.command("dump"));
  });

  it("Godot first, then Kiln: connected within 3 s of Kiln serving", async () => {
    const kept = await sceneOf();
    await godot!.stop();
    await kiln.kill("SIGKILL");
    godot = startLiveGodot(kiln, game, { cwd: project });
    await until(() => godot!.command("status").then((s) => s.state === "disconnected").catch(() => false), 30_000, "Godot to run");
    await new Promise((r) => setTimeout(r, 1500)); // it keeps retrying with backoff meanwhile
    await kiln.restart();
    const t0 = Date.now();
    await until(async () => (await godotConnection(kiln)) === "live", 10_000, "Godot to connect");
    console.log(`live godot: connected ${Date.now() - t0} ms after Kiln started serving`);
    const took = Date.now() - t0;
    expect(took).toBeLessThan(await appBound(godot!, 3000));
    expect(await sceneOf()).toEqual(kept);
    expectSameScene(kept, await godot.command("dump"));
  });
  it("Ctrl-C on `kiln godot` hands the scene back, as Blender's does: goodbye, then Godot's tools work embedded", async () => {
    const exited = new Promise((r) => godot!.process.once("exit", r));
    godot!.process.kill("SIGINT");
    await exited;
    await until(async () => (await godotConnection(kiln)) !== "live", 10_000, "Godot to leave");
    expect(await godotConnection(kiln)).toBe("embedded");
    await kiln.ok("create_gameobject", { app: "godot", name: "AfterCtrlC", type: "Cube" });
    godot = startLiveGodot(kiln, game, { cwd: project });
    await waitLive(30_000);
    expectSameScene(await sceneOf(), await godot.command("dump"));
  });

  it("a wrong token keeps the plugin out; a fake Kiln cannot make it run code", async () => {
    // A copy of the project, so this second editor does not share the first one's import cache.
    const copy = mkdtempSync(path.join(tmpdir(), "kiln-godot-fake-"));
    for (const f of ["project.godot", "main.tscn", "addons", ".import"]) if (existsSync(path.join(game, f))) cpSync(path.join(game, f), path.join(copy, f), { recursive: true });
    const instance = (await kiln.ok("get_pipeline_status", {})).apps.find((a: any) => a.app === "godot").live?.instance;
    const marker = path.join(copy, "ran");
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((r) => wss.once("listening", r));
    const replies: any[] = [];
    wss.on("connection", (ws) => {
      ws.on("message", (data, binary) => {
        if (binary) return;
        const m = JSON.parse(String(data));
        if (m.type !== "hello") return void (m.type === "reply" && replies.push(m));
        ws.send(JSON.stringify({ type: "welcome", protocol: 2, project: "fake", session: "s", heartbeat_ms: 10000 }));
        const code = `var f = File.new(); f.open(${JSON.stringify(marker)}, File.WRITE); f.store_string("x"); f.close()`;
        ws.send(JSON.stringify({ type: "execute_editor_script", id: "x1", code }));
        ws.send(JSON.stringify({ type: "exec", id: "x2", code }));
        ws.send(JSON.stringify({ type: "apply", id: "x3", seq: 1, label: code, changes: [{ id: "object/godot/Main/x", before: null, after: { type: "object", name: code } }] }));
      });
    });
    const port = (wss.address() as { port: number }).port;
    const run = (url: string, token: string) => spawn("godot3-server", ["-e", "--path", copy], { env: { ...process.env, KILN_BRIDGE_URL: url, KILN_BRIDGE_TOKEN: token }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const wrong = run(`${kiln.url.replace("http", "ws")}/bridge`, "not-the-token-at-all-but-long-enough");
    wrong.stdout!.on("data", (d) => (out += d));
    const fake = run(`ws://127.0.0.1:${port}/bridge`, "fake-token");
    try {
      // Godot 3.2's WebSocketClient does not tell the HTTP status: the plugin says it was refused or
      // found nothing, and keeps retrying; the live Godot stays the one that is connected.
      await until(() => /could not connect to Kiln/.test(out), 30_000, "the wrong token to be refused");
      await new Promise((r) => setTimeout(r, 1500));
      expect((await kiln.ok("get_pipeline_status", {})).apps.find((a: any) => a.app === "godot").live?.instance).toBe(instance);
      await until(() => replies.length >= 3, 30_000, "the plugin's replies");
      const byId = Object.fromEntries(replies.map((r) => [r.id, r]));
      expect(byId.x1).toMatchObject({ ok: false, error: { code: "UNKNOWN_REQUEST" } });
      expect(byId.x2).toMatchObject({ ok: false, error: { code: "UNKNOWN_REQUEST" } });
      expect(byId.x3).toMatchObject({ ok: false, error: { code: "APP_REFUSED" } });
      expect(existsSync(marker)).toBe(false);
    } finally {
      wrong.kill("SIGKILL");
      fake.kill("SIGKILL");
      wss.close();
    }
  });
});
