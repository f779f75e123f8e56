/**
 * `kiln godot` as a process, without Godot: KILN_GODOT is a stand-in script that records how it
 * was started, so the project set-up (a new project, an existing one, a folder that is neither) and
 * the hand-over (arguments, bridge URL and token in the environment) are checked here; the real
 * editor is driven in tests/interop/live-godot.test.ts.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/server";

function fakeGodot(version: string): { bin: string; log: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-fake-godot-"));
  const log = path.join(dir, "log.json");
  const bin = path.join(dir, "godot");
  writeFileSync(bin, `#!/usr/bin/env node
if (process.argv[2] === "--version") { console.log(${JSON.stringify(version)}); process.exit(0); }
require("fs").writeFileSync(${JSON.stringify(log)}, JSON.stringify({ args: process.argv.slice(2), url: process.env.KILN_BRIDGE_URL, token: process.env.KILN_BRIDGE_TOKEN }));
`);
  chmodSync(bin, 0o755);
  return { bin, log };
}

function kilnGodot(args: string[], godot: string, home: string) {
  return spawnSync(process.execPath, [path.join(ROOT, "bin/kiln.js"), "godot", ...args], {
    encoding: "utf8", env: { ...process.env, KILN_GODOT: godot, KILN_HOME: home, PORT: "18123" }, timeout: 60_000,
  });
}

describe("kiln godot", () => {
  it("makes an empty folder a Godot 3 project with the plugin enabled and starts the editor on it", () => {
    const home = mkdtempSync(path.join(tmpdir(), "kiln-home-"));
    const game = path.join(mkdtempSync(path.join(tmpdir(), "kiln-game-")), "game");
    const { bin, log } = fakeGodot("3.2.3.stable.custom_build");
    const r = kilnGodot(["--headless", game], bin, home);
    expect(r.status, r.stderr).toBe(0);
    const started = JSON.parse(readFileSync(log, "utf8"));
    expect(started.args).toEqual(["-e", "--path", game]);
    expect(started.url).toBe("ws://127.0.0.1:18123/bridge");
    const credentials = JSON.parse(readFileSync(path.join(home, "bridge.json"), "utf8"));
    expect(started.token).toBe(credentials.token);
    expect(readFileSync(path.join(game, "project.godot"), "utf8")).toContain(`enabled=PoolStringArray( "kiln" )`);
    const scene = readFileSync(path.join(game, "main.tscn"), "utf8");
    expect(scene).toContain(`[node name="Main" type="Spatial"]`);
    expect(scene).toContain(credentials.project);
    expect(existsSync(path.join(game, "addons/kiln/plugin.gd"))).toBe(true);
  });

  it("enables the plugin in an existing project beside the others, once", () => {
    const home = mkdtempSync(path.join(tmpdir(), "kiln-home-"));
    const game = mkdtempSync(path.join(tmpdir(), "kiln-game-"));
    writeFileSync(path.join(game, "project.godot"), `config_version=4\n\n[editor_plugins]\n\nenabled=PoolStringArray( "other" )\n`);
    const { bin } = fakeGodot("3.2.3.stable");
    expect(kilnGodot([game], bin, home).status).toBe(0);
    expect(kilnGodot([game], bin, home).status).toBe(0);
    expect(readFileSync(path.join(game, "project.godot"), "utf8")).toContain(`enabled=PoolStringArray( "other", "kiln" )\n`);
    expect(existsSync(path.join(game, "main.tscn"))).toBe(false);
  });

  it("gives a Godot 4 the Godot 4 plugin and project format, headless with --headless", () => {
    const home = mkdtempSync(path.join(tmpdir(), "kiln-home-"));
    const game = path.join(mkdtempSync(path.join(tmpdir(), "kiln-game-")), "game");
    const { bin, log } = fakeGodot("4.2.1.stable.official");
    expect(kilnGodot(["--headless", game], bin, home).status).toBe(0);
    expect(JSON.parse(readFileSync(log, "utf8")).args).toEqual(["--headless", "-e", "--path", game]);
    expect(readFileSync(path.join(game, "project.godot"), "utf8")).toContain(`enabled=PackedStringArray( "res://addons/kiln/plugin.cfg" )`);
    expect(readFileSync(path.join(game, "main.tscn"), "utf8")).toContain(`[node name="Main" type="Node3D"]`);
    expect(readFileSync(path.join(game, "addons/kiln/records.gd"), "utf8")).toContain("MeshInstance3D");
  });

  it("refuses a folder that is neither empty nor a Godot project, and a missing Godot", () => {
    const home = mkdtempSync(path.join(tmpdir(), "kiln-home-"));
    const dir = mkdtempSync(path.join(tmpdir(), "kiln-notgame-"));
    mkdirSync(path.join(dir, "src"));
    const r = kilnGodot([dir], fakeGodot("3.2.3").bin, home);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("neither empty nor a Godot project");
    const missing = kilnGodot([path.join(dir, "new")], "/nonexistent/godot", home);
    expect(missing.status).toBe(127);
    expect(missing.stderr).toContain("could not start /nonexistent/godot");
  });
});
