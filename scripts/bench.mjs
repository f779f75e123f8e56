#!/usr/bin/env node
// Runs every benchmark under tests/bench (or those named on the command line) one after another.
// Benchmarks print their figures; they are not part of CI's pass/fail.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wanted = process.argv.slice(2);
const benches = readdirSync(join(root, "tests/bench")).filter((f) => f.endsWith("-bench.ts") && (!wanted.length || wanted.some((w) => f.includes(w))));
let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), join("tests/bench", file)], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
