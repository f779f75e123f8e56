/**
 * One owner per project, on SQLite and on PostgreSQL: a second `kiln` on the same project (same
 * KILN_HOME, or another KILN_HOME on the same PostgreSQL database) exits 2 naming the owner's pid
 * and URL and leaves the owner's service.json alone; `kiln --run-recipe` forwards to the owner;
 * after the owner is SIGKILLed the next start takes over at once with every acknowledged write,
 * and marks what the crash cut off (recipe runs, transfers) `interrupted` where it was.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer, type Provider } from "../helpers/server";

const providers: Provider[] = ["sqlite", "postgresql"];

/** Runs bin/kiln.js; kills it after `ms` (a second service that wrongly started serving). */
function runKiln(args: string[], env: Record<string, string>, cwd: string, ms = 120_000): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js"), ...args], { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "", killed = false;
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => { killed = true; child.kill("SIGKILL"); }, ms);
    child.on("close", (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, killed }); });
  });
}

const SLOW_STEPS = 60;
const slowRecipe = [
  "name: slow", "description: many screenshots, so that a kill lands in the middle", "steps:",
  ...Array.from({ length: SLOW_STEPS }, (_, i) => `  - name: Shot ${i + 1}\n    tool: take_screenshot\n    params: { width: 900, height: 700 }`),
].join("\n") + "\n";

describe.each(providers)("ownership on %s", (provider) => {
  let kiln: KilnServer;
  let project: string;
  const serviceFile = () => path.join(kiln.home, "service.json");

  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), "kiln-owner-project-"));
    mkdirSync(path.join(project, "recipes"));
    writeFileSync(path.join(project, "recipes", "slow.yaml"), slowRecipe);
    writeFileSync(path.join(project, "one.yaml"), "name: one\ndescription: one object\nsteps:\n  - name: Make it\n    tool: create_gameobject\n    params: { name: Forwarded, type: Cube }\n");
    kiln = await startServer({ provider, cwd: project });
  });
  afterAll(async () => {
    await kiln?.stop();
    rmSync(project, { recursive: true, force: true });
  }, 300_000);

  it("a second kiln on the same project exits 2 naming the owner, and leaves service.json alone", async () => {
    await kiln.ok("create_scene", { name: "Owned" });
    const before = readFileSync(serviceFile(), "utf8");
    expect(JSON.parse(before)).toMatchObject({ pid: kiln.pid, url: kiln.url });
    const second = await runKiln([], { ...kiln.env, PORT: "0" }, project);
    expect(second.killed).toBe(false);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${kiln.pid}`);
    expect(second.stderr).toContain(kiln.url);
    expect(readFileSync(serviceFile(), "utf8")).toBe(before);
    expect((await kiln.ok("get_scene", {})).scene).toBe("Owned");
    await kiln.ok("create_gameobject", { name: "StillMine", type: "Cube" });
  }, 300_000);

  if (provider === "postgresql") {
    it("a second kiln with another KILN_HOME on the same database exits 2 naming the owner", async () => {
      const otherHome = mkdtempSync(path.join(tmpdir(), "kiln-owner-other-"));
      try {
        const second = await runKiln([], { ...kiln.env, KILN_HOME: otherHome, PORT: "0" }, project);
        expect(second.killed).toBe(false);
        expect(second.code).toBe(2);
        expect(second.stderr).toMatch(/PostgreSQL database/);
        expect(second.stderr).toContain(`pid ${kiln.pid}`);
        expect(second.stderr).toContain(kiln.url);
        // And the CLI from that other folder forwards to the database's owner.
        const cli = await runKiln(["--run-recipe", "one.yaml"], { ...kiln.env, KILN_HOME: otherHome }, project);
        expect(cli.code, cli.stderr).toBe(0);
        expect(cli.stderr).toContain(`serves this project at ${kiln.url}`);
      } finally {
        rmSync(otherHome, { recursive: true, force: true });
      }
    }, 300_000);
  }

  it("kiln --run-recipe forwards to the owner instead of opening the project itself", async () => {
    await kiln.call("delete_object", { target: "Forwarded" });
    const cli = await runKiln(["--run-recipe", "one.yaml"], kiln.env, project);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toContain(`serves this project at ${kiln.url}`);
    const names = (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name);
    expect(names).toContain("Forwarded");
  }, 300_000);

  it("after the owner is SIGKILLed, the next start serves within 2 s with every acknowledged write", async () => {
    const writes = await Promise.all(Array.from({ length: 50 }, (_, i) => kiln.call("create_gameobject", { name: `Ack${i}`, type: "Sphere", position: { x: i } })));
    expect(writes.every((w) => w.status === 200)).toBe(true);
    // A clean restart first, as the yardstick of this machine's start-up time (which alone can
    // exceed 2 s on a loaded machine): there is no stale-owner timeout to wait out.
    let started = performance.now();
    await kiln.restart();
    await kiln.ok("list_objects", {});
    const cleanMs = performance.now() - started;
    const oldPid = kiln.pid;
    await kiln.kill("SIGKILL");
    started = performance.now();
    await kiln.restart();
    const objects = (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name);
    const tookMs = performance.now() - started;
    console.log(`${provider}: after SIGKILL the new start served in ${tookMs.toFixed(0)} ms (a clean restart: ${cleanMs.toFixed(0)} ms)`);
    expect(kiln.pid).not.toBe(oldPid);
    // Ten times the same run's clean restart: a loaded machine stretches both alike, while a
    // stale-owner timeout to wait out would add its whole length. The figures are printed above.
    expect(tookMs).toBeLessThan(Math.max(2000, cleanMs * 10));
    for (let i = 0; i < 50; i++) expect(objects).toContain(`Ack${i}`);
    expect(objects).toEqual(expect.arrayContaining(["StillMine", "Forwarded"]));
    expect(JSON.parse(readFileSync(serviceFile(), "utf8"))).toMatchObject({ pid: kiln.pid, url: kiln.url });
  }, 300_000);

  it("a recipe run cut off by SIGKILL is interrupted after the restart, at the step it reached", async () => {
    const running = kiln.call("run_recipe", { recipe: "slow" }).catch(() => undefined);
    let run: { run_id: string; status: string; step_counts: { total: number } } | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      run = (await kiln.ok("list_recipe_runs", { recipe: "slow" })).runs[0];
      if (run?.status === "running" && run.step_counts.total >= 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(run?.status).toBe("running");
    await kiln.kill("SIGKILL");
    await running;
    await kiln.restart();
    const stored = await kiln.ok("get_recipe_run", { run_id: run!.run_id });
    expect(stored.status).toBe("interrupted");
    expect(stored.error.code).toBe("INTERRUPTED");
    expect(stored.interrupted_at.index).toBeGreaterThanOrEqual(run!.step_counts.total);
    expect(stored.interrupted_at.index).toBeLessThan(SLOW_STEPS);
    expect(stored.steps.length).toBeLessThanOrEqual(stored.interrupted_at.index);
    if (stored.interrupted_at.name) expect(stored.interrupted_at.name).toBe(`Shot ${stored.interrupted_at.index + 1}`);
    const listed = (await kiln.ok("list_recipe_runs", { recipe: "slow" })).runs[0];
    expect(listed).toMatchObject({ run_id: run!.run_id, status: "interrupted" });
  }, 300_000);

  it("a transfer left running by a crash is marked interrupted at its stage", async () => {
    await kiln.kill("SIGKILL");
    const row = ["crash-transfer", "blender", "unity", "Cube", "fbx", "{}", "running", "writing"];
    const insert = `INSERT INTO "Transfer" ("id", "sourceApp", "targetApp", "asset", "format", "options", "status", "stage") VALUES `;
    if (provider === "sqlite") {
      const db = new Database(path.join(kiln.home, "kiln.db"));
      db.prepare(`${insert}(?, ?, ?, ?, ?, ?, ?, ?)`).run(...row);
      db.close();
    } else {
      const client = new pg.Client({ connectionString: kiln.databaseUrl });
      await client.connect();
      await client.query(`${insert}($1, $2, $3, $4, $5, $6, $7, $8)`, row);
      await client.end();
    }
    await kiln.restart();
    const status = await kiln.ok("get_pipeline_status", {});
    const found = status.recent.find((t: { transfer_id: string }) => t.transfer_id === "crash-transfer");
    expect(found).toMatchObject({ status: "interrupted", error: { code: "INTERRUPTED", stage: "writing" } });
  }, 300_000);
});
