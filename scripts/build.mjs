#!/usr/bin/env node
// `npm run build`: the production build, plus a fingerprint of what it was built from, stored
// beside BUILD_ID. `node scripts/build.mjs --if-stale` (what `npm start` runs before bin/kiln.js)
// builds only when there is no build or the fingerprint differs, so a restart with unchanged
// sources serves at once. The fingerprint hashes the files the build reads (app/, server/ except tests,
// the Next.js and TypeScript configs, package.json and package-lock.json); hashing them takes
// tens of milliseconds, far less than a build (tens of seconds).
//
// Builds are serialised by a lock folder beside the build folder, so two processes starting at
// once (say, two `npm start`s) never write one build folder together: the second waits and
// then finds the build current.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const distDir = join(root, process.env.KILN_NEXT_DIST || ".next");
const FINGERPRINT = "kiln-source-fingerprint";
const SOURCE_DIRS = ["app", "server", "public"];
const SOURCE_FILES = ["next.config.js", "proxy.ts", "instrumentation.ts", "tsconfig.json", "css.d.ts", "package.json", "package-lock.json"];
// Tests and notes are not part of the build, so changing them needs no rebuild.
const NOT_BUILT = /(\.test\.tsx?|\.spec\.tsx?|\.md)$/;

function* files(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile() && !NOT_BUILT.test(entry.name)) yield path;
  }
}

/** sha256 over the build's inputs: each file's path and content, in a stable order. */
export function sourceFingerprint() {
  const paths = [...SOURCE_DIRS.flatMap((d) => [...files(join(root, d))]), ...SOURCE_FILES.map((f) => join(root, f)).filter((f) => existsSync(f))];
  const hash = createHash("sha256");
  for (const path of paths.map((p) => relative(root, p)).sort()) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** Whether the build folder holds a build of exactly these sources. */
function isCurrent(fingerprint) {
  try {
    return existsSync(join(distDir, "BUILD_ID")) && readFileSync(join(distDir, FINGERPRINT), "utf8").trim() === fingerprint;
  } catch {
    return false;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/** Takes the build lock, waiting for another build to end (a lock of a dead process is taken over). */
async function lock() {
  const dir = `${distDir}.build-lock`;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(dir, "pid"), "utf8"));
      } catch { /* being written or removed */ }
      if (Number.isInteger(owner) && !alive(owner)) rmSync(dir, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * The TypeScript that bin/kiln.js runs outside Next.js (the ownership claim before serving, the
 * bridge endpoint on the first WebSocket upgrade), compiled once here with esbuild: loading them
 * through tsx at run time costs ~0.4 s of a start on registering its loader alone.
 */
export const LAUNCHER_MODULES = { "ownership-serve": "server/ownership/serve.ts", "bridge-endpoint": "server/bridges/endpoint.ts" };

async function buildLauncherModules() {
  const { build: esbuild } = await import("esbuild");
  await esbuild({
    entryPoints: Object.fromEntries(Object.entries(LAUNCHER_MODULES).map(([name, file]) => [name, join(root, file)])),
    outdir: join(distDir, "kiln-launcher"),
    outExtension: { ".js": ".mjs" },
    bundle: true, platform: "node", format: "esm", target: "node20", packages: "external", logLevel: "warning",
  });
}

/**
 * Builds (always, or with `ifStale` only when the build does not match the sources); resolves
 * to the exit status of the build, 0 when none was needed.
 */
export async function build(ifStale) {
  if (ifStale && isCurrent(sourceFingerprint())) return 0;
  const unlock = await lock();
  try {
    // Read again under the lock: the build may have been made while we waited.
    const fingerprint = sourceFingerprint();
    if (ifStale && isCurrent(fingerprint)) return 0;
    if (ifStale) console.error(existsSync(join(distDir, "BUILD_ID"))
      ? "kiln: the sources changed since the last build; building (npm run build)..."
      : "kiln: no production build found; building once (npm run build)...");
    rmSync(join(distDir, FINGERPRINT), { force: true });
    const built = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], {
      cwd: root, stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (built.status !== 0) return built.status ?? 1;
    await buildLauncherModules();
    writeFileSync(join(distDir, FINGERPRINT), `${fingerprint}\n`);
    return 0;
  } finally {
    unlock();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== "--if-stale")) {
    console.error("usage: node scripts/build.mjs [--if-stale]");
    process.exit(2);
  }
  process.exit(await build(args.includes("--if-stale")));
}
