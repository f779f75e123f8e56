/**
 * Live Blender for the interop tests: `kiln blender --background` started as a user would, with
 * tests/interop/blender/live_driver.py inside it taking the test's commands (artist edits, bpy dumps)
 * from files. Plus the Blender-convention maths that turns Kiln's records into world matrices.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, type KilnServer } from "../helpers/server";

export const DRIVER = path.join(ROOT, "tests/interop/blender/live_driver.py");

export interface LiveBlender {
  process: ChildProcess;
  dir: string;
  output(): string;
  /** Runs one of the driver's commands inside Blender and returns its result. */
  command<T = any>(name: string, timeoutMs?: number): Promise<T>;
  /** Blender's own process id (the wrapper `kiln blender` is its parent). */
  pid(): number;
  /** SIGKILL to Blender itself: a crash. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: () => Promise<T | undefined | false> | T | undefined | false, ms: number, label = "condition"): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${label}`);
    await sleep(5);
  }
}

/** Starts `kiln blender --background [file]` for the project of `kiln`. */
export function startLiveBlender(kiln: KilnServer, opts: { file?: string; cwd?: string; env?: Record<string, string> } = {}): LiveBlender {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-driver-"));
  let output = "";
  let counter = 0;
  const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js"), "blender", "--background", "--script", DRIVER, ...(opts.file ? [opts.file] : [])], {
    cwd: opts.cwd ?? ROOT, env: { ...kiln.env, KILN_TEST_DRIVER_DIR: dir, ...opts.env } as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const pid = () => Number(readFileSync(path.join(dir, "pid"), "utf8"));
  const live: LiveBlender = {
    process: child, dir, output: () => output, pid,
    async command(name, timeoutMs = 20_000) {
      const n = String(++counter).padStart(4, "0");
      writeFileSync(path.join(dir, `tmp-${n}`), JSON.stringify({ do: name }));
      renameSync(path.join(dir, `tmp-${n}`), path.join(dir, `cmd-${n}.json`)); // whole, or not there
      const done = path.join(dir, `done-${n}.json`);
      await until(() => existsSync(done) || child.exitCode !== null, timeoutMs, `Blender to run ${name}`);
      if (!existsSync(done)) throw new Error(`Blender exited before ${name}:\n${output.slice(-3000)}`);
      const r = JSON.parse(readFileSync(done, "utf8"));
      if (!r.ok) throw new Error(`${name} failed in Blender: ${r.error}`);
      return r.result;
    },
    async crash() {
      await until(() => existsSync(path.join(dir, "pid")), 20_000, "Blender's pid");
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(pid(), "SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => { try { process.kill(pid(), "SIGKILL"); } catch { /* gone */ } }, 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return live;
}

/** Blender's status as Kiln reports it. */
export async function blenderConnection(kiln: KilnServer): Promise<string> {
  const r = await kiln.call("get_pipeline_status", {});
  return r.body.result?.apps.find((a: any) => a.app === "blender").connection;
}

type V = { x: number; y: number; z: number };
export type M = number[]; // 4x4 row-major

export const mul = (a: M, b: M): M => {
  const out = new Array(16).fill(0);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) for (let k = 0; k < 4; k++) out[r * 4 + c] += a[r * 4 + k] * b[k * 4 + c];
  return out;
};

/** The parts of a local matrix: translation, rotations about X, Y and Z (degrees), scale. */
export function trsParts(p: V, rDeg: V, s: V): { t: M; rx: M; ry: M; rz: M; sc: M } {
  const [x, y, z] = [rDeg.x, rDeg.y, rDeg.z].map((d) => (d * Math.PI) / 180);
  return {
    t: [1, 0, 0, p.x, 0, 1, 0, p.y, 0, 0, 1, p.z, 0, 0, 0, 1],
    rx: [1, 0, 0, 0, 0, Math.cos(x), -Math.sin(x), 0, 0, Math.sin(x), Math.cos(x), 0, 0, 0, 0, 1],
    ry: [Math.cos(y), 0, Math.sin(y), 0, 0, 1, 0, 0, -Math.sin(y), 0, Math.cos(y), 0, 0, 0, 0, 1],
    rz: [Math.cos(z), -Math.sin(z), 0, 0, Math.sin(z), Math.cos(z), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    sc: [s.x, 0, 0, 0, 0, s.y, 0, 0, 0, 0, s.z, 0, 0, 0, 0, 1],
  };
}

/** Blender's local matrix: translation · rotation (Euler XYZ: X first, so Rz·Ry·Rx) · scale. */
export function localMatrix(p: V, rDeg: V, s: V): M {
  const { t, rx, ry, rz, sc } = trsParts(p, rDeg, s);
  return mul(t, mul(mul(rz, mul(ry, rx)), sc));
}

/** World matrices of get_scene's objects by name (parents first), with an app's local matrix. */
export function worldMatrices(objects: { name: string; parent: string | null; position: V; rotation: V; scale: V }[], local = localMatrix): Map<string, M> {
  const byName = new Map(objects.map((o) => [o.name, o]));
  const out = new Map<string, M>();
  const world = (name: string): M => {
    const known = out.get(name);
    if (known) return known;
    const o = byName.get(name)!;
    const own = local(o.position, o.rotation, o.scale);
    const m = o.parent ? mul(world(o.parent), own) : own;
    out.set(name, m);
    return m;
  };
  for (const o of objects) world(o.name);
  return out;
}

export const close = (a: number[], b: number[], eps = 1e-4) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= eps);

/**
 * The bound for "the app did it within N ms" that a loaded machine cannot break: N (the figure
 * on a quiet machine, which the log line beside each check prints), or ten times a round trip of
 * the app's own `status` command measured in the same run, whichever is larger. A CPU burner
 * slows the round trip as much as the app's reaction, so the ratio holds; a broken mechanism (a
 * reconnect waiting out a long backoff, an edit sent on a timer) exceeds both.
 */
export async function appBound(app: { command(name: string): Promise<unknown> }, quietMs: number): Promise<number> {
  const started = Date.now();
  await app.command("status");
  const roundTrip = Date.now() - started;
  const bound = Math.max(quietMs, 10 * roundTrip);
  if (bound > quietMs) console.log(`(a status round trip took ${roundTrip} ms: the bound is ${bound} ms instead of ${quietMs} ms)`);
  return bound;
}
