#!/usr/bin/env node
// `npm test` (the README's test command, run by .ci/run): every stage runs even when an earlier
// one failed, so one red stage never hides the others' results. At the end it prints each stage's
// result and duration, and exits non-zero when any stage failed.
//
// A stage that needs the build (vitest's HTTP tests, interop, e2e) still runs when the build
// failed: its own failures then say what is missing, and the summary names the build as the cause.
//
// `node scripts/test-all.mjs typecheck vitest` runs only the named stages (same order).
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules/.bin", name);

/**
 * The stages, in order. Each is one command; its output goes straight to this terminal, except a
 * stage marked `alongside`: it runs at the same time as the next stage, its output kept and
 * printed when it ends. The typecheck (one core, about a minute) runs beside vitest, whose test
 * files run one at a time and mostly wait on the service they start. Not beside the build: tsc
 * reads the build's generated route types (.next/types), which the build rewrites.
 */
export const STAGES = [
  { name: "build", cmd: process.execPath, args: [join(root, "scripts/build.mjs")] },
  { name: "typecheck", cmd: bin("tsc"), args: ["--noEmit", "-p", "."], alongside: true },
  { name: "vitest", cmd: bin("vitest"), args: ["run"] },
  { name: "interop", cmd: bin("vitest"), args: ["run", "-c", "vitest.interop.config.ts"] },
  { name: "e2e", cmd: bin("playwright"), args: ["test"] },
];

function run(stage, quiet = false) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(stage.cmd, stage.args, { cwd: root, stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (quiet) {
      child.stdout.on("data", (d) => (output += d));
      child.stderr.on("data", (d) => (output += d));
    }
    const done = (code, error) => resolve({ name: stage.name, code, error, output, seconds: (performance.now() - started) / 1000 });
    child.on("error", (e) => done(-1, e.message));
    child.on("exit", (code, signal) => done(code ?? (signal ? 128 : 1), signal ? `killed by ${signal}` : undefined));
  });
}

const fmt = (s) => (s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s` : `${s.toFixed(1)}s`);

/** Runs the stages one after another, whatever each one's result; prints the summary; returns the exit code. */
export async function runStages(stages) {
  const started = performance.now();
  const results = [];
  const report = (r) => console.log(`=== ${r.name}: ${r.code === 0 ? "passed" : "FAILED"} in ${fmt(r.seconds)} ===`);
  let beside; // a stage running alongside the current one
  for (let i = 0; i < stages.length; i++) {
    const stage = stages[i];
    if (stage.alongside && i + 1 < stages.length && !beside) {
      console.log(`\n=== ${stage.name} (alongside ${stages[i + 1].name}; its output follows when it ends) ===`);
      beside = run(stage, true);
      continue;
    }
    console.log(`\n=== ${stage.name} ===`);
    const r = await run(stage);
    report(r);
    if (beside) {
      const b = await beside;
      beside = undefined;
      console.log(`\n=== ${b.name} output ===`);
      process.stdout.write(b.output);
      report(b);
      results.push(b);
    }
    results.push(r);
  }
  const buildFailed = results.some((r) => r.name === "build" && r.code !== 0);
  console.log("\nTest summary");
  for (const r of results) {
    const note = r.error ? ` (${r.error})` : r.code !== 0 && buildFailed && r.name !== "build" && r.name !== "typecheck" ? " (the build failed first)" : "";
    console.log(`  ${r.code === 0 ? "pass" : "FAIL"}  ${r.name.padEnd(10)} ${fmt(r.seconds).padStart(7)}${r.code !== 0 ? `  exit ${r.code}` : ""}${note}`);
  }
  const failed = results.filter((r) => r.code !== 0);
  console.log(`  total ${fmt((performance.now() - started) / 1000)}: ${failed.length ? `${failed.length} of ${results.length} stage(s) failed` : "all passed"}`);
  return failed.length ? 1 : 0;
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !STAGES.some((s) => s.name === w));
  if (unknown.length) {
    console.error(`unknown stage(s): ${unknown.join(", ")}; stages: ${STAGES.map((s) => s.name).join(", ")}`);
    process.exit(2);
  }
  const stages = wanted.length ? STAGES.filter((s) => wanted.includes(s.name)) : STAGES;
  process.exit(await runStages(stages));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
