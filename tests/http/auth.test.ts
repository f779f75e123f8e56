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

describe("pages with KILN_TOKEN", () => {
  const page = (path: string, headers: Record<string, string> = {}) => fetch(`${kiln.url}${path}`, { headers, redirect: "manual" });
  const login = (body: string, type = "application/x-www-form-urlencoded") =>
    fetch(`${kiln.url}/api/session`, { method: "POST", headers: { "content-type": type }, body, redirect: "manual" });

  it("sends a browser without the token to /login, showing nothing of the service", async () => {
    await kiln.call("create_gameobject", { name: "SecretCube", type: "Cube" }, { headers: { authorization: `Bearer ${TOKEN}` } });
    for (const path of ["/", "/recipes", "/recipes/new", "/docs/api"]) {
      const r = await page(path);
      expect(r.status, path).toBe(303);
      expect(r.headers.get("location")?.endsWith(`/login?next=${encodeURIComponent(path)}`), String(r.headers.get("location"))).toBe(true);
      expect(await r.text()).not.toMatch(/SecretCube|SQLite|objects/);
    }
    const form = await page("/login");
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toContain("Access token");
    expect(html).not.toMatch(/SecretCube|SQLite|kiln\.db/);
  });

  it("serves the pages to the bearer header", async () => {
    const r = await page("/", { authorization: `Bearer ${TOKEN}` });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain("Operations");
  });

  it("sets an HttpOnly SameSite=Strict session cookie for the right token, which pages and API routes accept", async () => {
    const wrong = await login(`token=nope&next=${encodeURIComponent("/recipes")}`);
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get("location")).toBe("/login?error=1&next=%2Frecipes");
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const right = await login(`token=${TOKEN}&next=${encodeURIComponent("/recipes")}`);
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe("/recipes");
    const cookie = right.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^kiln_session=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(";")[0];

    const home = await page("/", { cookie: session });
    expect(home.status).toBe(200);
    expect(await home.text()).toMatch(/Operations/);
    expect((await kiln.call("get_scene", {}, { headers: { cookie: session } })).status).toBe(200);
    expect((await page("/", { cookie: "kiln_session=forged" })).status).toBe(303);
    expect((await kiln.call("get_scene", {}, { headers: { cookie: "kiln_session=forged" } })).status).toBe(401);
  });

  it("never redirects off the site, and answers JSON logins with JSON", async () => {
    for (const next of ["//evil.example/", "/\\evil.example", "https://evil.example/"]) {
      const r = await login(`token=${TOKEN}&next=${encodeURIComponent(next)}`);
      expect(r.headers.get("location")).toBe("/");
    }
    const bad = await login(JSON.stringify({ token: "nope" }), "application/json");
    expect(bad.status).toBe(401);
    expect((await bad.json()).error.code).toBe("UNAUTHORIZED");
    const good = await login(JSON.stringify({ token: TOKEN }), "application/json");
    expect(good.status).toBe(200);
    expect(good.headers.get("set-cookie")).toMatch(/^kiln_session=/);
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
