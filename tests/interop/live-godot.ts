/**
 * Live Godot for the interop tests: `kiln godot --headless` (godot3-server's editor) started as a user
 * would, with tests/interop/godot/driver.gd inside it taking the test's commands (edits through
 * UndoRedo, dumps) from files; a second godot3-server run that dumps a saved .tscn; and Godot's
 * conventions (Y-up, Euler YXZ) for turning Kiln's records into world matrices.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, type KilnServer } from "../helpers/server";
import { until } from "./live";

export const GODOT_DRIVER = path.join(ROOT, "tests/interop/godot/driver.gd");
export const GODOT_DUMP = path.join(ROOT, "bridges/godot/dump_scene.gd");

/** Whether a Godot 3 server build is on PATH (what the interop tests need). */
export const hasGodotServer = () => /^3\./.test(spawnSync("godot3-server", ["--version"], { encoding: "utf8" }).stdout ?? "");

export interface LiveGodot {
  process: ChildProcess;
  dir: string;
  output(): string;
  command<T = any>(name: string, timeoutMs?: number): Promise<T>;
  /** SIGKILL to Godot itself: a crash. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `kiln godot --headless PROJECT_DIR` for the project of `kiln`. */
export function startLiveGodot(kiln: KilnServer, projectDir: string, opts: { cwd?: string; env?: Record<string, string>; args?: string[] } = {}): LiveGodot {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-godot-driver-"));
  let output = "";
  let counter = 0;
  const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js"), "godot", ...(opts.args ?? ["--headless"]), "--driver", GODOT_DRIVER, projectDir], {
    cwd: opts.cwd ?? ROOT, env: { ...kiln.env, KILN_TEST_DRIVER_DIR: dir, KILN_GODOT_DUMP: GODOT_DUMP, ...opts.env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const pid = () => Number(readFileSync(path.join(dir, "pid"), "utf8"));
  const kill = (signal: NodeJS.Signals) => { try { process.kill(pid(), signal); } catch { /* gone */ } };
  const live: LiveGodot = {
    process: child, dir, output: () => output,
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
export function dumpSavedScene(projectDir: string, scene: string): any {
  const out = path.join(mkdtempSync(path.join(tmpdir(), "kiln-tscn-")), "dump.json");
  const r = spawnSync("godot3-server", ["--path", projectDir, "-s", GODOT_DUMP, "--scene", scene, "--out", out], { encoding: "utf8", timeout: 60_000, killSignal: "SIGKILL" });
  if (!existsSync(out)) throw new Error(`godot3-server could not dump ${scene}: ${r.stderr}\n${r.stdout}`);
  return JSON.parse(readFileSync(out, "utf8"));
}

/** Godot's status as Kiln reports it. */
export async function godotConnection(kiln: KilnServer): Promise<string> {
  const r = await kiln.call("get_pipeline_status", {});
  return r.body.result?.apps.find((a: any) => a.app === "godot").connection;
}

type V = { x: number; y: number; z: number };
type M = number[];

const mul = (a: M, b: M): M => {
  const out = new Array(16).fill(0);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) for (let k = 0; k < 4; k++) out[r * 4 + c] += a[r * 4 + k] * b[k * 4 + c];
  return out;
};

/** Godot's local matrix: translation · rotation (Euler YXZ: Ry·Rx·Rz) · scale. */
export function godotLocal(p: V, rDeg: V, s: V): M {
  const [x, y, z] = [rDeg.x, rDeg.y, rDeg.z].map((d) => (d * Math.PI) / 180);
  const rx: M = [1, 0, 0, 0, 0, Math.cos(x), -Math.sin(x), 0, 0, Math.sin(x), Math.cos(x), 0, 0, 0, 0, 1];
  const ry: M = [Math.cos(y), 0, Math.sin(y), 0, 0, 1, 0, 0, -Math.sin(y), 0, Math.cos(y), 0, 0, 0, 0, 1];
  const rz: M = [Math.cos(z), -Math.sin(z), 0, 0, Math.sin(z), Math.cos(z), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const t: M = [1, 0, 0, p.x, 0, 1, 0, p.y, 0, 0, 1, p.z, 0, 0, 0, 1];
  const sc: M = [s.x, 0, 0, 0, 0, s.y, 0, 0, 0, 0, s.z, 0, 0, 0, 0, 1];
  return mul(t, mul(mul(ry, mul(rx, rz)), sc));
}

/** World matrices of get_scene's objects by name (Godot conventions). */
export function godotWorlds(objects: { name: string; parent: string | null; position: V; rotation: V; scale: V }[]): Map<string, M> {
  const byName = new Map(objects.map((o) => [o.name, o]));
  const out = new Map<string, M>();
  const world = (name: string): M => {
    const known = out.get(name);
    if (known) return known;
    const o = byName.get(name)!;
    const local = godotLocal(o.position, o.rotation, o.scale);
    const m = o.parent ? mul(world(o.parent), local) : local;
    out.set(name, m);
    return m;
  };
  for (const o of objects) world(o.name);
  return out;
}
