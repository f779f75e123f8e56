/**
 * `kiln godot [--headless] [--driver FILE] [PROJECT_DIR]`: starts the Godot 3 editor on a project
 * with the Kiln plugin (bridges/godot/addons/kiln) installed from this checkout and enabled, pointed
 * at this project's service (docs/bridges.md). An empty or missing folder becomes a minimal project
 * whose main scene is an empty Spatial "Main" (Kiln's default scene). The plugin connects by itself
 * and reconnects whenever the service restarts, so the service need not run yet.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../config";
import { loadBridgeCredentials } from "../bridges/credentials";
import { packageRoot } from "../runtime";
import { readOwnerInfo } from "../ownership/owner";

const USAGE = `Usage: kiln godot [--headless] [--driver FILE] [PROJECT_DIR]
  --headless     run the editor without a window (godot3-server), e.g. in CI
  --driver FILE  a GDScript the plugin instances (start(plugin), tick(plugin)): a test's stand-in for the user
PROJECT_DIR defaults to ./godot. Godot is KILN_GODOT, or godot3 (godot3-server with --headless) on PATH.`;

const PLUGIN_LINE = `enabled=PoolStringArray( "kiln" )`;

/** A minimal Godot 3 project: the plugin enabled, an empty 3D main scene stamped with this project. */
function createProject(dir: string, project: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "project.godot"), [
    "; Engine configuration file, written by `kiln godot`.", "config_version=4", "",
    "[application]", "", `config/name="${path.basename(dir).replace(/"/g, "")}"`, `run/main_scene="res://main.tscn"`, "",
    "[editor_plugins]", "", PLUGIN_LINE, "",
  ].join("\n"));
  // The stamp says this scene is Kiln's and has no offline edits, so Kiln's state is pushed to it.
  writeFileSync(path.join(dir, "main.tscn"), [
    "[gd_scene format=2]", "",
    `[node name="Main" type="Spatial"]`,
    `__meta__ = { "kiln_stamp": { "dirty": false, "project": ${JSON.stringify(project)}, "seq": 0 } }`, "",
  ].join("\n"));
}

/** Enables the plugin in an existing project.godot (Godot 3.2 lists plugins by folder name). */
function enablePlugin(file: string): void {
  const text = readFileSync(file, "utf8");
  const section = /^\[editor_plugins\]\s*$/m;
  if (!section.test(text)) return writeFileSync(file, `${text.trimEnd()}\n\n[editor_plugins]\n\n${PLUGIN_LINE}\n`);
  const enabled = /^enabled=PoolStringArray\(([^)]*)\)\s*$/m;
  const m = text.match(enabled);
  if (!m) return writeFileSync(file, text.replace(section, `[editor_plugins]\n\n${PLUGIN_LINE}`));
  if (/"kiln"/.test(m[1])) return;
  const list = m[1].trim() ? `${m[1].trim()}, "kiln"` : `"kiln"`;
  writeFileSync(file, text.replace(enabled, `enabled=PoolStringArray( ${list} )`));
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
  const projectFile = path.join(dir, "project.godot");
  if (!existsSync(projectFile)) {
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      console.error(`kiln godot: ${dir} is neither empty nor a Godot project (no project.godot)`);
      return 2;
    }
    createProject(dir, project);
    console.error(`kiln: created a Godot project in ${dir}`);
  } else {
    enablePlugin(projectFile);
  }
  // Installed from this checkout at every start, so the project runs the plugin this Kiln speaks.
  cpSync(path.join(packageRoot(), "bridges/godot/addons/kiln"), path.join(dir, "addons/kiln"), { recursive: true });

  const service = readOwnerInfo(config.home)?.url ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  const url = `${service.replace(/^http/, "ws").replace(/\/$/, "")}/bridge`;
  const godot = process.env.KILN_GODOT || (headless ? "godot3-server" : "godot3");
  console.error(`kiln: starting ${godot}${headless ? " headless" : ""} on ${dir}, bridge ${url}`);
  // The token goes through the environment, not the command line, which other users can read.
  const env = { ...process.env, KILN_BRIDGE_URL: url, KILN_BRIDGE_TOKEN: token, ...(driver ? { KILN_GODOT_DRIVER: driver } : {}) };
  const child = spawn(godot, ["-e", "--path", dir], { stdio: "inherit", env });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  return new Promise((resolve) => {
    child.on("error", (e) => {
      console.error(`kiln godot: could not start ${godot}: ${e.message}`);
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
