/**
 * Runs real Blender headless for the interop tests. Blender missing is a failure with the install
 * command, never a skip: these tests exist to prove Kiln's files work in the real application.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";

export const BLENDER_SCRIPTS = path.join(__dirname, "blender");

/** Runs `blender -b --factory-startup --python <script> -- ...args` and parses its KILN_JSON line. */
export function runBlender<T = any>(script: string, args: string[]): T {
  const run = spawnSync("blender", ["-b", "--factory-startup", "--python-exit-code", "1", "--python", path.join(BLENDER_SCRIPTS, script), "--", ...args], {
    encoding: "utf8", timeout: 180_000, maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error && (run.error as NodeJS.ErrnoException).code === "ENOENT")
    throw new Error("Blender is not installed: apt-get install -y --no-install-recommends blender python3-numpy (CI installs it).");
  const output = `${run.stdout}\n${run.stderr}`;
  const line = run.stdout.split("\n").find((l) => l.startsWith("KILN_JSON:"));
  if (run.status !== 0 || !line) throw new Error(`blender ${script} exited with ${run.status}:\n${output.slice(-4000)}`);
  return JSON.parse(line.slice("KILN_JSON:".length)) as T;
}
