/**
 * Live Godot for the interop tests: `kiln godot --headless` (godot3-server's editor) started as a user
 * would, with tests/interop/godot/driver.gd inside it taking the test's commands (edits through
 * UndoRedo, dumps) from files; a second godot3-server run that dumps a saved .tscn; and Godot's
 * conventions (Y-up, Euler YXZ) for turning Kiln's records into world matrices.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, type KilnServer } from "../helpers/server";
import { expect } from "vitest";
import { close, mul, trsParts, until, worldMatrices, type M } from "./live";

export const GODOT_DRIVER = path.join(ROOT, "tests/interop/godot/driver.gd");
export const GODOT_DUMP = path.join(ROOT, "bridges/godot/dump_scene.gd");

/** Whether a Godot 3 server build is on PATH (what the interop tests need). */
export const hasGodotServer = () => /^3\./.test(spawnSync("godot3-server", ["--version"], { encoding: "utf8" }).stdout ?? "");

export interface LiveGodot {
  process: ChildProcess;
  /** When `kiln godot` was spawned (Date.now()). */
  startedAt: number;
  dir: string;
  output(): string;
  command<T = any>(name: string, timeoutMs?: number): Promise<T>;
  /** SIGKILL to Godot itself: a crash. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `kiln godot --headless PROJECT_DIR` for the project of `kiln`. */
export function startLiveGodot(kiln: KilnServer, projectDir: string, opts: { cwd?: string; env?: Record<string, string>; args?: string[]; driver?: string; dump?: string } = {}): LiveGodot {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-godot-driver-"));
  let output = "";
  let counter = 0;
  const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js"), "godot", ...(opts.args ?? ["--headless"]), "--driver", opts.driver ?? GODOT_DRIVER, projectDir], {
    cwd: opts.cwd ?? ROOT, env: { ...kiln.env, KILN_TEST_DRIVER_DIR: dir, KILN_GODOT_DUMP: opts.dump ?? GODOT_DUMP, ...opts.env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const pid = () => Number(readFileSync(path.join(dir, "pid"), "utf8"));
  const kill = (signal: NodeJS.Signals) => { try { process.kill(pid(), signal); } catch { /* gone */ } };
  const live: LiveGodot = {
    process: child, startedAt: Date.now(), dir, output: () => output,
    async command(name, timeoutMs = 20_000) {
      const n = String(++counter).padStart(4, "0");
      writeFileSync(path.join(dir, `tmp-${n}`), JSON.stringify({ do: name }));
      renameSync(path.join(dir, `tmp-${n}`), path.join(dir, `cmd-${n}.json`));
      const done = path.join(dir, `done-${n}.json`);
      await until(() => existsSync(done) || child.exitCode !== null, timeoutMs, `Godot to run ${name}`);
      if (!existsSync(done)) throw new Error(`Godot exited before ${name}:\n${output.slice(-3000)}`);
      const r = JSON.parse(readFileSync(done, "utf8"));
      if (!r.ok) throw new Error(`${name} failed in Godot: ${r.error}`);
      return r.result;
    },
    async crash() {
      await until(() => existsSync(path.join(dir, "pid")), 20_000, "Godot's pid");
      const exited = new Promise((r) => child.once("exit", r));
      kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      // The server build's editor can hang on quit: SIGTERM, then SIGKILL.
      child.kill("SIGTERM");
      const timer = setTimeout(() => kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
  return live;
}

/** A saved .tscn as a fresh godot3-server run loads it (bridges/godot/dump_scene.gd). */
export function dumpSavedScene(projectDir: string, scene: string, godot: string[] = ["godot3-server"], script = GODOT_DUMP): any {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "kiln-tscn-")), "dump.json");
  const r = spawnSync(godot[0], [...godot.slice(1), "--path", projectDir, "-s", script, "--scene", scene, "--out", out], { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" });
  if (!existsSync(out)) throw new Error(`godot3-server could not dump ${scene}: ${r.stderr}\n${r.stdout}`);
  return JSON.parse(readFileSync(out, "utf8"));
}

/** Godot's status as Kiln reports it. */
export async function godotConnection(kiln: KilnServer): Promise<string> {
  const r = await kiln.call("get_pipeline_status", {});
  return r.body.result?.apps.find((a: any) => a.app === "godot").connection;
}

/** The README's scene for app godot, in Godot's conventions (Y up, cameras look down -Z). */
export const README_STEPS = `
  - { name: Scene, tool: create_scene, params: { name: "{{ scene }}", app: godot } }
  - { name: Ground, tool: create_gameobject, params: { name: Ground, type: Plane, scale: { x: 50, y: 1, z: 50 }, app: godot } }
  - { name: Sun, tool: create_light, params: { name: Sun, type: Directional, intensity: 1.2, rotation: { x: -50, y: 30, z: 0 }, app: godot } }
  - { name: Camera, tool: set_camera, params: { position: { x: 0, y: 3, z: 8 }, rotation: { x: -15, y: 0, z: 0 }, app: godot } }
  - { name: Red, tool: create_material, params: { name: "{{ scene }}Red", color: { r: 1, g: 0, b: 0, a: 1 }, app: godot } }
  - { name: Box, tool: create_gameobject, params: { name: Box, type: Cube, position: { x: 0, y: 1, z: 0 }, app: godot } }
  - { name: Paint, tool: set_material, params: { target: Box, material: "{{ scene }}Red", app: godot } }
  - { name: Child, tool: create_gameobject, params: { name: Child, type: Sphere, parent: Box, position: { x: 2, y: 0, z: 0 }, rotation: { x: 0, y: 45, z: 10 }, scale: { x: 0.5, y: 0.5, z: 0.5 }, app: godot } }
  - { name: Lamp, tool: create_light, params: { name: Lamp, type: Point, intensity: 3, position: { x: 2, y: 4, z: 2 }, app: godot } }
`;

export function writeRecipe(dir: string, name: string, steps: string, variables = "scene: Demo") {
  mkdirSync(path.join(dir, "recipes"), { recursive: true });
  writeFileSync(path.join(dir, "recipes", `${name}.yaml`), `name: ${name}\ndescription: ${name}\nvariables:\n  ${variables}\nsteps:\n${steps}`);
}

/** Node classes of Kiln's kinds (and light types) in Godot 3 and in Godot 4. */
export const GODOT3_CLASSES: Record<string, string> = { empty: "Spatial", mesh: "MeshInstance", Directional: "DirectionalLight", Point: "OmniLight", Spot: "SpotLight" };
export const GODOT4_CLASSES: Record<string, string> = { empty: "Node3D", mesh: "MeshInstance3D", Directional: "DirectionalLight3D", Point: "OmniLight3D", Spot: "SpotLight3D" };

/** Kiln's get_scene and a Godot view (the live editor's, or a saved .tscn's) agree to 1e-5. */
export function expectSameGodotScene(scene: any, view: any, classes: Record<string, string>) {
  expect(view.scene).toBe(scene.scene);
  expect(view.objects.map((o: any) => o.name).sort()).toEqual(scene.objects.map((o: any) => o.name).sort());
  const worlds = godotWorlds(scene.objects);
  const materials = new Map(scene.materials.map((m: any) => [m.name, m]));
  for (const o of scene.objects) {
    const g = view.objects.find((x: any) => x.name === o.name);
    expect(g.class, o.name).toBe(classes[o.kind === "light" ? o.light.type : o.kind]);
    expect(g.parent, o.name).toBe(o.parent);
    expect(close(g.matrix, worlds.get(o.name)!, 1e-5), `${o.name} world matrix ${g.matrix} vs ${worlds.get(o.name)}`).toBe(true);
    if (o.material) {
      const m: any = materials.get(o.material);
      expect(g.material).toBe(o.material);
      expect(close(g.color, [m.color.r, m.color.g, m.color.b, m.color.a], 1e-5), `${o.name} colour`).toBe(true);
    }
    if (o.light) expect(g.energy).toBeCloseTo(o.light.intensity, 5);
  }
  const [camera] = godotWorlds([{ name: "c", parent: null, position: scene.camera.position, rotation: scene.camera.rotation, scale: { x: 1, y: 1, z: 1 } }]).values();
  expect(close(view.camera.matrix, camera, 1e-5), "camera").toBe(true);
  expect(view.camera.fov).toBeCloseTo(scene.camera.fov, 4);
}


type V = { x: number; y: number; z: number };

/** Godot's local matrix: translation · rotation (Euler YXZ: Ry·Rx·Rz) · scale. */
export function godotLocal(p: V, rDeg: V, s: V): M {
  const { t, rx, ry, rz, sc } = trsParts(p, rDeg, s);
  return mul(t, mul(mul(ry, mul(rx, rz)), sc));
}

/** World matrices of get_scene's objects by name (Godot conventions). */
export function godotWorlds(objects: { name: string; parent: string | null; position: V; rotation: V; scale: V }[]): Map<string, M> {
  return worldMatrices(objects, godotLocal);
}
