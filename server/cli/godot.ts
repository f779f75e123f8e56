/**
 * `kiln godot [--headless] [--driver FILE] [PROJECT_DIR]`: starts the Godot editor on a project with
 * the Kiln plugin installed from this checkout and enabled (bridges/godot/addons/kiln for Godot 3,
 * bridges/godot4/addons/kiln when KILN_GODOT is a Godot 4), pointed
 * at this project's service (docs/bridges.md). An empty or missing folder becomes a minimal project
 * whose main scene is an empty Spatial "Main" (Kiln's default scene). The plugin connects by itself
 * and reconnects whenever the service restarts, so the service need not run yet.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../config";
import { loadBridgeCredentials } from "../bridges/credentials";
import { packageRoot } from "../runtime";
import { readOwnerInfo } from "../ownership/owner";

const USAGE = `Usage: kiln godot [--headless] [--driver FILE] [PROJECT_DIR]
  --headless     run the editor without a window (godot3-server), e.g. in CI
  --driver FILE  a GDScript the plugin instances (start(plugin), tick(plugin)): a test's stand-in for the user
PROJECT_DIR defaults to ./godot. Godot is KILN_GODOT, or godot3 (godot3-server with --headless) on PATH;
a Godot 4 gets the Godot 4 plugin (bridges/godot4).`;

/** How long Godot has to say goodbye and quit after Ctrl-C before it is stopped outright. */
const STOP_GRACE_MS = 5_000;

/** What differs between the Godot 3 and Godot 4 projects and plugins. */
const FLAVOURS = {
  3: {
    plugin: "bridges/godot/addons/kiln", array: "PoolStringArray", entry: `"kiln"`, config: 4, sceneFormat: 2, root: "Spatial",
    meta: (stamp: string) => `__meta__ = { "kiln_stamp": ${stamp} }`, headless: (a: string[]) => a,
  },
  4: {
    plugin: "bridges/godot4/addons/kiln", array: "PackedStringArray", entry: `"res://addons/kiln/plugin.cfg"`, config: 5, sceneFormat: 3, root: "Node3D",
    meta: (stamp: string) => `metadata/kiln_stamp = ${stamp}`, headless: (a: string[]) => ["--headless", ...a],
  },
} as const;
type Flavour = (typeof FLAVOURS)[3 | 4];

/** A minimal project: the plugin enabled, an empty 3D main scene stamped with this project. */
function createProject(dir: string, project: string, f: Flavour): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "project.godot"), [
    "; Engine configuration file, written by `kiln godot`.", `config_version=${f.config}`, "",
    "[application]", "", `config/name="${path.basename(dir).replace(/"/g, "")}"`, `run/main_scene="res://main.tscn"`, "",
    "[editor_plugins]", "", `enabled=${f.array}( ${f.entry} )`, "",
  ].join("\n"));
  // The stamp says this scene is Kiln's and has no offline edits, so Kiln's state is pushed to it.
  const stamp = `{ "dirty": false, "project": ${JSON.stringify(project)}, "seq": 0 }`;
  writeFileSync(path.join(dir, "main.tscn"), [
    `[gd_scene format=${f.sceneFormat}]`, "", `[node name="Main" type="${f.root}"]`, f.meta(stamp), "",
  ].join("\n"));
}

/** Enables the plugin in an existing project.godot (Godot 3.2 lists plugins by folder name, 4 by plugin.cfg). */
function enablePlugin(file: string, f: Flavour): void {
  const text = readFileSync(file, "utf8");
  const line = `enabled=${f.array}( ${f.entry} )`;
  const section = /^\[editor_plugins\]\s*$/m;
  if (!section.test(text)) return writeFileSync(file, `${text.trimEnd()}\n\n[editor_plugins]\n\n${line}\n`);
  const enabled = new RegExp(`^enabled=${f.array}\\(([^)]*)\\)[ \\t]*$`, "m");
  const m = text.match(enabled);
  if (!m) return writeFileSync(file, text.replace(section, `[editor_plugins]\n\n${line}`));
  if (m[1].includes(f.entry)) return;
  const list = m[1].trim() ? `${m[1].trim()}, ${f.entry}` : f.entry;
  writeFileSync(file, text.replace(enabled, `enabled=${f.array}( ${list} )`));
}

/** The major version of a Godot binary (3 when it cannot be told: the version Debian ships). */
function majorVersion(godot: string): 3 | 4 {
  const out = spawnSync(godot, ["--version"], { encoding: "utf8", timeout: 20_000 }).stdout ?? "";
  return /^4\./.test(out.trim()) ? 4 : 3;
}

export async function godotCommand(args: string[]): Promise<number> {
  let headless = false;
  let driver: string | undefined;
  let dir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--headless") headless = true;
    else if (a === "--driver" && args[i + 1]) driver = path.resolve(args[++i]);
    else if (!a.startsWith("-") && !dir) dir = path.resolve(a);
    else {
      console.error(`kiln godot: unexpected "${a}"\n${USAGE}`);
      return 2;
    }
  }
  dir ??= path.resolve("godot");
  const config = loadConfig();
  mkdirSync(config.home, { recursive: true });
  const { token, project } = loadBridgeCredentials(config.home);
  const godot = process.env.KILN_GODOT || (headless ? "godot3-server" : "godot3");
  const flavour = FLAVOURS[majorVersion(godot)];
  const projectFile = path.join(dir, "project.godot");
  if (!existsSync(projectFile)) {
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      console.error(`kiln godot: ${dir} is neither empty nor a Godot project (no project.godot)`);
      return 2;
    }
    createProject(dir, project, flavour);
    console.error(`kiln: created a Godot project in ${dir}`);
  } else {
    enablePlugin(projectFile, flavour);
  }
  // Installed from this checkout at every start, so the project runs the plugin this Kiln speaks.
  cpSync(path.join(packageRoot(), flavour.plugin), path.join(dir, "addons/kiln"), { recursive: true });

  const service = readOwnerInfo(config.home)?.url ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  const url = `${service.replace(/^http/, "ws").replace(/\/$/, "")}/bridge`;
  console.error(`kiln: starting ${godot}${headless ? " headless" : ""} on ${dir}, bridge ${url}`);
  // The token goes through the environment, not the command line, which other users can read.
  // Godot lets its scripts see no signal: to stop, this command creates this file, and the plugin,
  // which looks for it five times a second, says goodbye (Kiln takes the scene back) and quits.
  const stopDir = mkdtempSync(path.join(tmpdir(), "kiln-godot-"));
  const stopFile = path.join(stopDir, "stop");
  const env = { ...process.env, KILN_BRIDGE_URL: url, KILN_BRIDGE_TOKEN: token, KILN_GODOT_STOP_FILE: stopFile, ...(driver ? { KILN_GODOT_DRIVER: driver } : {}) };
  // Godot 4 has one binary: --headless gives it the server build's dummy display and renderer.
  // Its own process group, so a terminal's Ctrl-C reaches this command only, not Godot directly.
  const child = spawn(godot, headless ? flavour.headless(["-e", "--path", dir]) : ["-e", "--path", dir], { stdio: "inherit", env, detached: true });
  let stopping = false;
  const stop = () => {
    if (stopping) return void child.kill("SIGKILL"); // a second Ctrl-C: at once
    stopping = true;
    writeFileSync(stopFile, "");
    // A plugin that does not answer (a hung editor, an older plugin) is stopped anyway.
    setTimeout(() => child.kill("SIGTERM"), STOP_GRACE_MS).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // If this command ends any other way, Godot goes with it.
  process.on("exit", () => child.exitCode === null && child.signalCode === null && child.kill("SIGTERM"));
  return new Promise((resolve) => {
    child.on("error", (e) => {
      console.error(`kiln godot: could not start ${godot}: ${e.message}`);
      resolve(127);
    });
    child.on("exit", (code, signal) => {
      rmSync(stopDir, { recursive: true, force: true });
      resolve(stopping && (code === 0 || code === null) ? 0 : code ?? (signal ? 1 : 0));
    });
  });
}
