/**
 * "Tweak, run again": the README's examples (read from README.md itself, so the test follows the
 * README) and every sample recipe in ./recipes run twice in a row against the service; both runs
 * succeed and the scenes after the second equal the scenes after the first. What a re-run
 * replaced is in the history (get_history) as one entry per replacement.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runKiln, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

/** Every app's scenes (all of them, with objects, materials and cameras): the state a re-run must keep. */
async function world(): Promise<string> {
  const apps = await Promise.all(["blender", "unity", "godot"].map(async (app) => {
    const active = await kiln.ok("get_scene", { app });
    const scenes = await Promise.all(active.scenes.map((scene: string) => kiln.ok("get_scene", { app, scene })));
    return { app, active: active.active_scene, scenes };
  }));
  return JSON.stringify(apps);
}

interface Command { kind: "curl"; method: string; tool: string; query: string; body?: string }
interface CliCommand { kind: "cli"; args: string[] }

/** Words of a shell command line: single and double quotes, no expansions (the README uses none). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(#.*$)|(\S+)/g;
  for (const m of line.matchAll(re)) {
    if (m[3] !== undefined) break; // a comment
    words.push(m[1] ?? m[2]?.replace(/\\(.)/g, "$1") ?? m[4]);
  }
  return words;
}

/** The commands of README.md's ```sh blocks that call Kiln (curl to /tools, kiln --run-recipe). */
function readmeCommands(): (Command | CliCommand)[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].replace(/\\\n\s*/g, " "));
  const out: (Command | CliCommand)[] = [];
  for (const line of blocks.flatMap((b) => b.split("\n"))) {
    const words = shellWords(line.trim());
    if (words[0] === "curl") {
      const url = words.find((w) => w.includes("localhost:8080/tools/"))!;
      const [, tool, query = ""] = /\/tools\/([a-z_]+)\??(.*)$/.exec(url)!;
      const x = words.indexOf("-X");
      const d = words.indexOf("-d");
      const body = d >= 0 ? words[d + 1] : undefined;
      out.push({ kind: "curl", method: x >= 0 ? words[x + 1] : body !== undefined ? "POST" : "GET", tool, query, body });
    } else if (words[0] === "npx" && words[1] === "kiln" && words.includes("--run-recipe")) {
      out.push({ kind: "cli", args: words.slice(2) });
    }
  }
  return out;
}

async function runReadme(commands: (Command | CliCommand)[]) {
  for (const c of commands) {
    if (c.kind === "cli") {
      // The CLI finds the running service through KILN_HOME/service.json and runs there.
      const r = await runKiln(c.args, { env: { ...process.env, KILN_HOME: kiln.home, DATABASE_URL: "" } as NodeJS.ProcessEnv });
      expect(r.code, `${c.args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
      continue;
    }
    const r = await fetch(`${kiln.url}/tools/${c.tool}${c.query ? `?${c.query}` : ""}`, {
      method: c.method, ...(c.body !== undefined ? { headers: { "content-type": "application/json" }, body: c.body } : {}),
    });
    const body = await r.json();
    expect(r.status, `${c.method} ${c.tool} ${c.body ?? c.query}: ${JSON.stringify(body)}`).toBe(200);
    if (c.tool === "run_recipe") expect(body.result.status, JSON.stringify(body.result.steps)).toBe("succeeded");
  }
}

describe("the README's examples run twice in a row", () => {
  it("finds the examples: the tool calls, run_recipe and kiln --run-recipe", () => {
    const commands = readmeCommands();
    const tools = commands.flatMap((c) => (c.kind === "curl" ? [c.tool] : []));
    expect(tools).toEqual(expect.arrayContaining(["create_scene", "create_gameobject", "create_light", "create_material", "run_recipe"]));
    expect(commands.some((c) => c.kind === "cli")).toBe(true);
  });

  it("succeed both times and leave the same scenes", async () => {
    const commands = readmeCommands();
    await runReadme(commands);
    const first = await world();
    await runReadme(commands);
    expect(await world()).toBe(first);
  });
});

describe("each sample recipe runs twice in a row", () => {
  const samples = readdirSync(path.join(ROOT, "recipes")).filter((f) => f.endsWith(".yaml")).map((f) => f.replace(/\.yaml$/, ""));

  it("there are sample recipes", () => expect(samples.length).toBeGreaterThanOrEqual(3));

  it.each(samples)("%s: both runs succeed, the state after the second equals the state after the first", async (recipe) => {
    const first = await kiln.ok("run_recipe", { recipe });
    expect(first.status, JSON.stringify(first.steps)).toBe("succeeded");
    const afterFirst = await world();
    const lastSeq = (await kiln.ok("get_history", { limit: 1 })).entries[0].seq;
    const second = await kiln.ok("run_recipe", { recipe });
    expect(second.status, JSON.stringify(second.steps)).toBe("succeeded");
    expect(second.failed_steps).toBe(0);
    expect(await world()).toBe(afterFirst);
    // Every scene-changing step of the second run, replacements included, is one history entry.
    const { entries } = await kiln.ok("get_history", { limit: 100 });
    const count = (tools: string[]) => tools.filter((t) => /^(create|set)_/.test(t)).sort();
    const ran = second.steps.filter((s: { status: string }) => s.status === "succeeded").map((s: { tool: string }) => s.tool);
    expect(count(entries.filter((e: { seq: number }) => e.seq > lastSeq).map((e: { tool: string }) => e.tool))).toEqual(count(ran));
    expect(second.steps.some((s: { result?: { outcome?: string } }) => s.result?.outcome === "replaced")).toBe(true);
  });
});

describe("if_exists over HTTP", () => {
  it("a replacement is one history entry that a transaction rollback undoes", async () => {
    await kiln.ok("create_gameobject", { name: "Twice", type: "Cube", position: { x: 1 } });
    await kiln.ok("begin_transaction", { name: "replace and undo" });
    const replaced = await kiln.ok("create_gameobject", { name: "Twice", type: "Sphere", if_exists: "replace" });
    expect(replaced).toMatchObject({ outcome: "replaced", object: { type: "Sphere", position: { x: 0 } } });
    expect((await kiln.ok("get_transaction_status")).transaction.operations).toBe(1);
    await kiln.ok("rollback_transaction");
    const back = (await kiln.ok("get_scene", {})).objects.find((o: { name: string }) => o.name === "Twice");
    expect(back).toMatchObject({ type: "Cube", position: { x: 1 } });
  });

  it("reuse of an object of another type is a 409 that names both types; error is the default", async () => {
    const r = await kiln.call("create_gameobject", { name: "Twice", type: "Sphere", if_exists: "reuse" });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "NAME_CONFLICT", details: { existing_type: "Cube", requested_type: "Sphere" } });
    const plain = await kiln.call("create_gameobject", { name: "Twice", type: "Cube" });
    expect(plain.status).toBe(409);
    expect((await kiln.call("create_gameobject", { name: "Twice", type: "Cube", if_exists: "sometimes" })).status).toBe(400);
  });
});
