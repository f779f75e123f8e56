/**
 * `kiln --run-recipe` as a separate process, from a project folder that is not Kiln's own:
 * exit 0 when the run succeeded, 1 when a step failed, 2 when the recipe is invalid (with
 * `file:line:column: message` lines) or the command line is wrong, 3 when it cannot run at all;
 * one line per step; `--json` for machines; `--var` overrides typed as YAML scalars. In-process
 * runs change the project's own data; with a service serving the project, the CLI runs there.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runKiln, startServer, type KilnServer } from "../helpers/server";

let project: string;
let home: string;

interface Outcome { code: number | null; stdout: string; stderr: string }

/** Runs bin/kiln.js in the project folder with its own data folder and HOME. */
function kilnCli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), KILN_HOME: path.join(project, ".kiln"), HOME: home, ...env };
  delete childEnv.DATABASE_URL;
  delete childEnv.KILN_TOKEN;
  return runKiln(args, { cwd: project, env: childEnv as NodeJS.ProcessEnv });
}

const write = (file: string, text: string) => writeFileSync(path.join(project, file), text);

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), "kiln-cli-project-"));
  home = mkdtempSync(path.join(tmpdir(), "kiln-cli-home-"));
  cpSync(path.join(ROOT, "recipes"), path.join(project, "recipes"), { recursive: true });
  write("fails.yaml", [
    "name: fails", "description: the second step fails", "steps:",
    "  - name: First", "    tool: create_gameobject", "    params: { name: First, type: Cube }",
    "  - name: Orphan", "    tool: create_gameobject", "    params: { name: Orphan, type: Cube, parent: Nobody }",
    "  - name: Last", "    tool: create_gameobject", "    params: { name: Last, type: Cube }", "",
  ].join("\n"));
  write("continues.yaml", [
    "name: continues", "description: the second step fails and the run goes on", "steps:",
    "  - name: First", "    tool: create_gameobject", "    params: { name: Cont First, type: Cube, if_exists: replace }",
    "  - name: Orphan", "    tool: create_gameobject", "    params: { name: Cont Orphan, type: Cube, parent: Nobody }", "    on_error: continue",
    "  - name: Last", "    tool: create_gameobject", "    params: { name: Cont Last, type: Cube, if_exists: replace }", "",
  ].join("\n"));
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe("kiln --run-recipe in-process", () => {
  it("runs a sample with --var overrides, printing one line per step and a summary (exit 0)", async () => {
    const r = await kilnCli(["--run-recipe", "recipes/basic-scene-setup.yaml", "--var", "scene_name=Cli Scene", "--var", "ground_size=25"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(7);
    // The scene it made became the active one: said under its step, not done silently.
    expect(lines[1]).toBe('    made "Cli Scene" the active scene of unity (it was "Main")');
    const steps = [["Create new scene", "create_scene"], ["Create ground", "create_gameobject"], ["Add sun light", "create_light"], ["Set camera", "set_camera"], ["Take screenshot", "take_screenshot"]];
    steps.forEach(([name, tool], i) => expect(lines[i === 0 ? 0 : i + 1]).toMatch(new RegExp(`^✓ ${name} +${tool} +[\\d.]+ (ms|s)$`)));
    expect(lines[6]).toMatch(/^✓ basic-scene-setup succeeded: 5 succeeded, 0 failed, 0 skipped in [\d.]+ m?s \(in-process; run [0-9a-f-]{36}\)$/);
    expect(r.stdout).not.toContain("\u001b["); // not a TTY: no colours
  });

  it("--json prints only the run result, with --var values typed as YAML scalars", async () => {
    const r = await kilnCli(["--run-recipe", "recipes/colored-materials.yaml", "--json", "--var", "prefix=Json", "--var=primary_g=0.75", "--var", "secondary_b=1"]);
    expect(r.code).toBe(0);
    const run = JSON.parse(r.stdout);
    expect(run).toMatchObject({ recipe: "colored-materials", status: "succeeded", variables: { prefix: "Json", primary_g: 0.75, secondary_b: 1 } });
    expect(run.steps[0].result.material.color).toEqual({ r: 0.9, g: 0.75, b: 0.1, a: 1 });
    expect(run.steps[1].result.material.color.b).toBe(1);
  });

  it("exits 1 when a step fails, showing the error and the steps not run", async () => {
    const r = await kilnCli(["--run-recipe", "fails.yaml"]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^✓ First +create_gameobject/);
    expect(lines[1]).toMatch(/^✗ Orphan +create_gameobject +[\d.]+ ms$/);
    expect(lines[2]).toMatch(/^ +OBJECT_NOT_FOUND: .*Nobody/);
    expect(lines[3]).toMatch(/^– Last +create_gameobject +skipped: not run: an earlier step failed$/);
    expect(lines[4]).toMatch(/^✗ fails failed: 1 succeeded, 1 failed, 1 skipped/);
  });

  it("exits 0 when the only failed step has on_error: continue (the run succeeds, the failure is shown and counted)", async () => {
    const r = await kilnCli(["--run-recipe", "continues.yaml"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^✗ Orphan +create_gameobject/);
    expect(lines[2]).toMatch(/^ +OBJECT_NOT_FOUND: /);
    expect(lines[3]).toMatch(/^✓ Last +create_gameobject/);
    expect(lines[4]).toMatch(/^✓ continues succeeded: 2 succeeded, 1 failed, 0 skipped/);
    const json = await kilnCli(["--run-recipe", "continues.yaml", "--json", "--var", "unused=1"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "succeeded", failed_steps: 1 });
  });

  it("exits 2 on an invalid recipe with file:line:column lines for every problem", async () => {
    const text = readFileSync(path.join(ROOT, "tests/fixtures/recipes/many-problems.yaml"), "utf8");
    write("many-problems.yaml", text);
    const line = (needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
    const r = await kilnCli(["--run-recipe", "many-problems.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    const errors = r.stderr.trimEnd().split("\n").filter((l) => !l.includes(": warning: "));
    expect(errors[0]).toBe(`many-problems.yaml:${line("create_scen")}:11: steps[0].tool: unknown tool "create_scen" (did you mean "create_scene"?)`);
    expect(errors[1]).toMatch(new RegExp(`^many-problems\\.yaml:${line('"left"')}:\\d+: steps\\[1\\]\\.params\\.position\\.x: `));
    expect(errors[2]).toMatch(new RegExp(`^many-problems\\.yaml:${line("{{ label }}")}:\\d+: steps\\[2\\]\\.params\\.name: .*label`));
    expect(errors[3]).toMatch(new RegExp(`^many-problems\\.yaml:${line("condition:")}:\\d+: steps\\[3\\]\\.condition: `));
    expect(errors[4]).toBe("kiln: many-problems.yaml is not a valid recipe (4 errors)");

    const json = await kilnCli(["--run-recipe", "many-problems.yaml", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, errors: expect.any(Array) });
  });

  it("exits 2 when a --var makes the recipe invalid, or the command line is wrong", async () => {
    const typed = await kilnCli(["--run-recipe", "recipes/basic-scene-setup.yaml", "--var", "ground_size=huge"]);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toMatch(/basic-scene-setup\.yaml:\d+:\d+: .*ground_size/);
    for (const args of [["--run-recipe"], ["--run-recipe", "nope.yaml"], ["--run-recipe", "fails.yaml", "--var", "1bad=2"], ["--run-recipe", "fails.yaml", "--bogus"], ["--run-recipe", "fails.yaml", "--server", "ftp://x"]]) {
      const r = await kilnCli(args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^kiln: /);
    }
  });

  it("runs in-process when service.json is stale (its process lives, but does not own the project)", async () => {
    const stale = path.join(project, ".kiln-stale");
    mkdirSync(stale);
    writeFileSync(path.join(stale, "service.json"), JSON.stringify({ pid: process.pid, url: "http://127.0.0.1:9" }));
    const r = await kilnCli(["--run-recipe", "recipes/conditional-props.yaml", "--var", "prefix=Stale"], { KILN_HOME: stale });
    expect(r.code).toBe(0);
    // Nobody holds the project's lock, so the file is just left over: no attempt to reach it.
    expect(r.stderr).not.toContain("127.0.0.1:9");
    expect(r.stdout).toContain("(in-process; run ");
    expect(existsSync(path.join(stale, "service.json"))).toBe(false);
  });

  it("recorded the runs in the project's data, where a service started later finds them", async () => {
    const kiln = await startServer({ home: path.join(project, ".kiln"), cwd: project, env: { HOME: home } });
    try {
      const { runs } = await kiln.ok("list_recipe_runs", {});
      expect(runs.map((r: { recipe: string }) => r.recipe)).toEqual(expect.arrayContaining(["basic-scene-setup", "colored-materials", "fails"]));
      expect(runs.find((r: { recipe: string }) => r.recipe === "fails")).toMatchObject({ source: "cli", path: path.join(project, "fails.yaml"), status: "failed" });
      const scene = await kiln.ok("get_scene", { scene: "Cli Scene" });
      expect(scene.objects.find((o: { name: string }) => o.name === "Ground").scale).toEqual({ x: 25, y: 1, z: 25 });
    } finally {
      await kiln.stop();
    }
  });
});

describe("kiln --run-recipe against a service", () => {
  let kiln: KilnServer;
  beforeAll(async () => { kiln = await startServer({ cwd: project, env: { HOME: home } }); });
  afterAll(async () => { await kiln?.stop(); });

  it("uses the service serving this project (from .kiln/service.json) instead of running in-process", async () => {
    expect(JSON.parse(readFileSync(path.join(kiln.home, "service.json"), "utf8"))).toMatchObject({ url: kiln.url, pid: expect.any(Number) });
    await kiln.ok("create_scene", { name: "Served" });
    const r = await kilnCli(["--run-recipe", "recipes/conditional-props.yaml", "--var", "prefix=Served"], { KILN_HOME: kiln.home });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`serves this project at ${kiln.url}`);
    const runId = /\(http:\/\/127\.0\.0\.1:\d+; run ([0-9a-f-]{36})\)$/m.exec(r.stdout)?.[1];
    expect(runId, r.stdout).toBeDefined();
    // The run is in the service's history, noted as a CLI run of that file.
    const [latest] = (await kiln.ok("list_recipe_runs", { recipe: "conditional-props", limit: 1 })).runs;
    expect(latest).toMatchObject({ run_id: runId, source: "cli", path: path.join(project, "recipes/conditional-props.yaml"), status: "succeeded" });
    const stored = await kiln.ok("get_recipe_run", { run_id: runId });
    expect(stored.variables).toMatchObject({ prefix: "Served" });
    // Each step printed as it finished, once, in order.
    expect(r.stdout.split("\n").flatMap((l) => /^[✓✗–] (.+?)  +[a-z_]+ /.exec(l)?.[1] ?? [])).toEqual([
      "Create table", "Create first chair", "Create second chair", "Add lamp", "Put a vase on the table",
    ]);
    // The service saw the changes at once: no second copy of the state diverged from it.
    const names = (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name);
    expect(names).toEqual(expect.arrayContaining(["Served Table", "Served Chair 1", "Served Chair 2", "Served Vase"]));
  });

  it("--server runs against the given service; exit 1 when a step fails there", async () => {
    const r = await kilnCli(["--run-recipe", "fails.yaml", "--server", kiln.url, "--json"]);
    expect(r.code).toBe(1);
    const run = JSON.parse(r.stdout);
    expect(run).toMatchObject({ run_id: expect.any(String), status: "failed", failed_steps: 1 });
    expect(run.steps[1].error.code).toBe("OBJECT_NOT_FOUND");
    expect(await kiln.ok("get_recipe_run", { run_id: run.run_id })).toMatchObject({ source: "cli", status: "failed" });
    expect((await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name)).toContain("First");
  });

  it("exits 0 through the service when only on_error: continue steps failed", async () => {
    const r = await kilnCli(["--run-recipe", "continues.yaml", "--server", kiln.url]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✗ Orphan/m);
    expect(r.stdout).toMatch(/^✓ continues succeeded: 2 succeeded, 1 failed, 0 skipped/m);
  });

  it("exits 3 when the service cannot be reached, before running anything", async () => {
    const r = await kilnCli(["--run-recipe", "fails.yaml", "--server", "http://127.0.0.1:9"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^kiln: cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it("removes service.json when the service stops", async () => {
    await kiln.kill("SIGTERM"); // stop() would also delete the data folder
    expect(existsSync(kiln.home)).toBe(true);
    expect(existsSync(path.join(kiln.home, "service.json"))).toBe(false);
  });
});
