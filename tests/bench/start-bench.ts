/**
 * How fast `npm start` serves when the build matches the sources: the fingerprint check that
 * every start runs (scripts/build.mjs), and a start of the service (bin/kiln.js) until it answers
 * GET /tools, as wall time and as the CPU time the service used (what the wall time is on an idle
 * machine). Needs a current build (npm run build). Prints medians.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function startOnce(port: number): Promise<{ wall: number; cpu: number }> {
  const home = mkdtempSync(path.join(tmpdir(), "kiln-start-bench-"));
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js")], {
    cwd: ROOT, env: { ...process.env, KILN_HOME: home, PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: "" }, stdio: "ignore",
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`kiln exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/tools`)).status === 200) break;
      } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 20));
    }
    return { wall: performance.now() - started, cpu: cpuMs(child.pid!) };
  } finally {
    await new Promise((r) => { child.once("exit", r); child.kill("SIGTERM"); });
    rmSync(home, { recursive: true, force: true });
  }
}

const checks: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/build.mjs"), "--if-stale"], { cwd: ROOT, encoding: "utf8" });
  checks.push(performance.now() - t);
  if (r.status !== 0 || /building/i.test(r.stderr)) throw new Error(`the build is not current; run npm run build first\n${r.stderr}`);
}
const starts = [];
for (let i = 0; i < 3; i++) starts.push(await startOnce(18500 + i));
console.log(`load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
console.log(`build check (node scripts/build.mjs --if-stale, as its own process): median ${median(checks).toFixed(0)} ms of 5`);
console.log(`start until GET /tools answers: median ${median(starts.map((s) => s.wall)).toFixed(0)} ms wall, ${median(starts.map((s) => s.cpu)).toFixed(0)} ms CPU (of 3)`);
