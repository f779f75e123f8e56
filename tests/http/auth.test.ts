/**
 * With KILN_TOKEN set, every /tools request needs the bearer token; and Kiln refuses to listen
 * on a non-loopback address without one.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
const TOKEN = "s3cret-token-for-tests";
beforeAll(async () => { kiln = await startServer({ env: { KILN_TOKEN: TOKEN } }); });
afterAll(async () => { await kiln?.stop(); });

describe("bearer token", () => {
  it("refuses calls without the token, or with a wrong one", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: TOKEN }] as Record<string, string>[]) {
      const r = await kiln.call("get_scene", {}, { headers });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("UNAUTHORIZED");
    }
    expect((await fetch(`${kiln.url}/tools`)).status).toBe(401);
  });

  it("accepts calls with the token", async () => {
    const r = await kiln.call("create_gameobject", { name: "A", type: "Cube" }, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
  });
});

describe("binding", () => {
  it("refuses a non-loopback address without a token", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOST: "0.0.0.0", PORT: "0" };
    delete env.KILN_TOKEN;
    const r = spawnSync(process.execPath, [path.join(ROOT, "bin/kiln.js")], { env, encoding: "utf8", timeout: 20_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("KILN_TOKEN");
  });
});
