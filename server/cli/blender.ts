/**
 * `kiln blender [--background] [--script FILE]... [FILE.blend]`: starts Blender with the Kiln add-on
 * loaded from this checkout and pointed at this project's service (docs/bridges.md). The add-on
 * connects by itself and reconnects whenever the service restarts, so the service need not run yet.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../config";
import { loadBridgeCredentials } from "../bridges/credentials";
import { packageRoot } from "../runtime";
import { readOwnerInfo } from "../ownership/owner";

const USAGE = `Usage: kiln blender [--background] [--script FILE]... [FILE.blend]
  --background   run Blender without a window (blender -b), e.g. on a render node or in CI
  --script FILE  run this Python file inside Blender before the bridge starts (repeatable)
Blender is KILN_BLENDER, or blender on PATH. With KILN_TOKEN set (a personal access token), Blender
connects as that token's person; otherwise with the project's bridge token.`;

export async function blenderCommand(args: string[]): Promise<number> {
  let background = false;
  const scripts: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--background" || a === "-b") background = true;
    else if (a === "--script" && args[i + 1]) scripts.push(path.resolve(args[++i]));
    else if (!a.startsWith("-") && !file) file = path.resolve(a);
    else {
      console.error(`kiln blender: unexpected "${a}"\n${USAGE}`);
      return 2;
    }
  }
  if (file && !existsSync(file)) {
    console.error(`kiln blender: ${file} does not exist`);
    return 2;
  }
  const config = loadConfig();
  mkdirSync(config.home, { recursive: true });
  // KILN_TOKEN (a personal access token in team mode, docs/teams.md) makes the app's hand edits that
  // person's ("Ada in Blender"); otherwise the project's bridge token, accepted from this machine.
  const token = process.env.KILN_TOKEN || loadBridgeCredentials(config.home).token;
  const service = readOwnerInfo(config.home)?.url ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  const url = `${service.replace(/^http/, "ws").replace(/\/$/, "")}/bridge`;
  const start = path.join(packageRoot(), "bridges/blender/start.py");
  const argv = [
    ...(background ? ["-b", "--factory-startup"] : []),
    ...(file ? [file] : []),
    ...scripts.flatMap((s) => ["--python", s]),
    "--python", start,
  ];
  const blender = process.env.KILN_BLENDER || "blender";
  console.error(`kiln: starting ${blender}${background ? " in the background" : ""}, bridge ${url}`);
  // The token goes through the environment, not the command line, which other users can read.
  const child = spawn(blender, argv, { stdio: "inherit", env: { ...process.env, KILN_BRIDGE_URL: url, KILN_BRIDGE_TOKEN: token } });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  return new Promise((resolve) => {
    child.on("error", (e) => {
      console.error(`kiln blender: could not start ${blender}: ${e.message}`);
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** `kiln bridge-token`: prints the project's bridge token, for a desktop Blender's add-on preferences. */
export function bridgeTokenCommand(): number {
  const config = loadConfig();
  mkdirSync(config.home, { recursive: true });
  console.log(loadBridgeCredentials(config.home).token);
  return 0;
}
