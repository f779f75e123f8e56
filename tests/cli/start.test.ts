/**
 * `npm start` serves at once when the production build matches the sources: started twice in a
 * row with nothing changed, the second start builds nothing (no build output, BUILD_ID and the
 * build's files untouched). The build's fingerprint (scripts/build.mjs) covers the sources, not the
 * tests.
 *
 * How long the second start takes (wall and CPU time until it answers) is printed here and measured
 * by tests/bench/start-bench.ts, not asserted: on a loaded machine any duration can stretch.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/server";

const distDir = path.join(ROOT, process.env.KILN_NEXT_DIST || ".next");

/** The fingerprint of the sources as scripts/build.mjs computes it, in a process of its own. */
function fingerprint(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", `import("${path.join(ROOT, "scripts/build.mjs")}").then((m) => console.log(m.sourceFingerprint()))`], { cwd: ROOT });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))));
  });
}

/**
 * CPU time (user + system, finished children included) used so far by the processes of a process
 * group (npm, its shell, the build check, the service), in ms; undefined off Linux.
 */
function groupCpuMs(pgid: number): number | undefined {
  try {
    let total = 0;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let fields: string[];
      try {
        fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
      } catch {
        continue; // ended meanwhile
      }
      // state ppid pgrp ... utime(11) stime(12) cutime(13) cstime(14), in USER_HZ (100 per second)
      if (Number(fields[2]) === pgid) total += fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) * 10;
    }
    return total;
  } catch {
    return undefined;
  }
}

/** Runs `npm start` in a process group of its own; resolves once it answers, with its timings and output. */
async function start(home: string, port: number) {
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT, detached: true,
    env: { ...process.env, KILN_HOME: home, PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const stop = () => new Promise((r) => { child.once("exit", r); process.kill(-child.pid!, "SIGTERM"); });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`kiln exited with ${child.exitCode}:\n${output}`);
    if (performance.now() - started > 180_000) { await stop(); throw new Error(`kiln did not answer within 180 s:\n${output}`); }
    try {
      if ((await fetch(`http://127.0.0.1:${port}/tools`)).status === 200) break;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { wallMs: performance.now() - started, cpuMs: groupCpuMs(child.pid!), output: () => output, stop };
}

describe("restarting with unchanged sources", () => {
  it("the build beside BUILD_ID carries the fingerprint of the current sources", async () => {
    expect(readFileSync(path.join(distDir, "kiln-source-fingerprint"), "utf8").trim()).toBe(await fingerprint());
  });

  it("the service started twice in a row: the second builds nothing", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "kiln-start-"));
    const buildId = readFileSync(path.join(distDir, "BUILD_ID"), "utf8");
    const buildIdWritten = statSync(path.join(distDir, "BUILD_ID")).mtimeMs;
    const fingerprintWritten = statSync(path.join(distDir, "kiln-source-fingerprint")).mtimeMs;
    try {
      const first = await start(home, 18000 + Math.floor(Math.random() * 1000));
      await first.stop();
      const load = loadavg()[0];
      const second = await start(home, 19000 + Math.floor(Math.random() * 1000));
      await second.stop();
      console.log(`second start answered after ${Math.round(second.wallMs)} ms wall, ${second.cpuMs} ms CPU (load ${load.toFixed(1)} on ${cpus().length} cores)`);
      expect(second.output()).not.toMatch(/building|Creating an optimized production build/i);
      expect(readFileSync(path.join(distDir, "BUILD_ID"), "utf8")).toBe(buildId);
      expect(statSync(path.join(distDir, "BUILD_ID")).mtimeMs, "BUILD_ID not rewritten").toBe(buildIdWritten);
      expect(statSync(path.join(distDir, "kiln-source-fingerprint")).mtimeMs, "fingerprint not rewritten").toBe(fingerprintWritten);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
