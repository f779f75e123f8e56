/**
 * Team mode over HTTP, against the running service (KILN_AUTH=team). Invariants: every tool and
 * every surface answers 401 without credentials; each tool's declared permission is enforced from
 * the registry (a viewer's token on every writing tool, an editor's on every admin tool: 403
 * naming the role); a revoked token is refused on its next request and its open /events stream
 * closes at once; the database holds no token, session token or password as given; repeated bad
 * passwords get 429; everything persists across a restart.
 */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startServer, type KilnServer } from "../helpers/server";
import { bearer, post, setUpTeam, type Team } from "../helpers/team";

let kiln: KilnServer;
let team: Team;
type Tool = { name: string; methods: string[]; permission: "read" | "write" | "admin" };
let tools: Tool[];

beforeAll(async () => {
  kiln = await startServer({ env: { KILN_AUTH: "team" } });
  team = await setUpTeam(kiln);
  tools = (await (await fetch(`${kiln.url}/tools`, { headers: bearer(team.owner) })).json()).result.tools;
}, 300_000);
afterAll(async () => kiln?.stop());

const call = (tool: string, body: unknown, headers: Record<string, string> = {}) => post(`${kiln.url}/tools/${tool}`, body, headers);

/** Reads an SSE response until it ends; resolves with when it ended. */
function readUntilEnd(r: Response): Promise<number> {
  const reader = r.body!.getReader();
  return (async () => {
    for (;;) {
      const { done } = await reader.read().catch(() => ({ done: true }));
      if (done) return performance.now();
    }
  })();
}

describe("team mode: credentials", () => {
  it("the catalogue declares each tool's permission, and admin tools include delete_version and the team tools", () => {
    expect(tools.length).toBeGreaterThan(40);
    const admin = tools.filter((t) => t.permission === "admin").map((t) => t.name);
    expect(admin).toEqual(expect.arrayContaining(["delete_version", "list_users", "invite_user", "remove_user", "set_user_role", "reset_password", "get_audit_log"]));
  });

  it("every tool answers 401 with WWW-Authenticate without credentials", async () => {
    for (const tool of tools) {
      for (const method of tool.methods) {
        const r = await fetch(`${kiln.url}/tools/${tool.name}`, method === "GET" ? {} : { method, headers: { "content-type": "application/json" }, body: "{}" });
        expect([tool.name, method, r.status]).toEqual([tool.name, method, 401]);
        expect(r.headers.get("www-authenticate")).toMatch(/^Bearer /);
        expect((await r.json()).error.code).toBe("UNAUTHORIZED");
      }
    }
    // A wrong token and a malformed header are refused too.
    expect((await call("get_scene", {}, bearer("kiln_not_a_token"))).status).toBe(401);
    expect((await call("get_scene", {}, { authorization: "Basic eDp5" })).status).toBe(401);
  });

  it("every other surface answers 401 too, and pages send a browser to /sign-in", async () => {
    const uuid = "00000000-0000-4000-8000-000000000000";
    for (const [pathname, init] of [
      ["/tools", {}], ["/openapi.json", {}], ["/schemas/recipe.json", {}], ["/events", {}],
      [`/screenshots/${uuid}.png`, {}], [`/transfers/${uuid}/file`, {}], ["/versions/v001/render", {}],
      ["/api/trpc/tools.get_scene", {}],
      ["/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) }],
    ] as const) {
      const r = await fetch(`${kiln.url}${pathname}`, { ...init, redirect: "manual" });
      expect([pathname, r.status]).toEqual([pathname, 401]);
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer realm="kiln"/);
    }
    for (const page of ["/", "/scene", "/versions", "/team", "/login"]) {
      const r = await fetch(`${kiln.url}${page}`, { redirect: "manual" });
      expect([page, r.status]).toEqual([page, 303]);
      expect(new URL(r.headers.get("location")!, kiln.url).pathname).toBe("/sign-in");
    }
    expect((await fetch(`${kiln.url}/sign-in`)).status).toBe(200);
  });

  it("the bridge refuses an upgrade without a token (401), with a read-only token (403), and takes a writer's", async () => {
    const upgrade = (headers: Record<string, string>) => new Promise<number>((resolve) => {
      const ws = new WebSocket(`${kiln.url.replace("http", "ws")}/bridge`, { headers });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => { ws.terminate(); resolve(101); });
      ws.on("error", () => resolve(-1));
    });
    expect(await upgrade({})).toBe(401);
    expect(await upgrade(bearer("kiln_nope"))).toBe(401);
    expect(await upgrade(bearer(team.viewer))).toBe(403);
    expect(await upgrade(bearer(team.editor))).toBe(101);
  });

  it("a session cookie works on /tools, tRPC and /events; a cookie-authenticated change must be JSON from this origin", async () => {
    expect((await call("whoami", {}, { cookie: team.ownerCookie })).body.result.user.role).toBe("owner");
    const trpc = await fetch(`${kiln.url}/api/trpc/tools.whoami?input=${encodeURIComponent("{}")}`, { headers: { cookie: team.ownerCookie } });
    expect((await trpc.json()).result.data.user.name).toBe("Olive");
    const form = await fetch(`${kiln.url}/tools/create_scene`, { method: "POST", headers: { cookie: team.ownerCookie, "content-type": "text/plain" }, body: '{"name":"X"}' });
    expect(form.status).toBe(415);
    const foreign = await call("create_scene", { name: "X" }, { cookie: team.ownerCookie, origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("ORIGIN_REFUSED");
  });
});

describe("team mode: roles, from the registry", () => {
  it("a viewer's token gets 403 naming the editor role on every writing tool, and reads", async () => {
    const writing = tools.filter((t) => t.permission !== "read");
    expect(writing.length).toBeGreaterThan(20);
    for (const tool of writing) {
      const r = await call(tool.name, {}, bearer(team.viewer));
      expect([tool.name, r.status, r.body.error?.code]).toEqual([tool.name, 403, "FORBIDDEN"]);
      expect(r.body.error.details.required_role).toBe(tool.permission === "admin" ? "owner" : "editor");
      expect(r.body.error.message).toContain(`needs the ${tool.permission === "admin" ? "owner" : "editor"} role`);
    }
    for (const tool of tools.filter((t) => t.permission === "read")) {
      const r = await call(tool.name, {}, bearer(team.viewer));
      expect([tool.name, r.status]).not.toEqual([tool.name, 403]);
      expect([tool.name, r.status]).not.toEqual([tool.name, 401]);
    }
  });

  it("an editor's token gets 403 naming the owner role on every admin tool, and changes scenes", async () => {
    for (const tool of tools.filter((t) => t.permission === "admin")) {
      const r = await call(tool.name, {}, bearer(team.editor));
      expect([tool.name, r.status, r.body.error?.details?.required_role]).toEqual([tool.name, 403, "owner"]);
    }
    expect((await call("create_gameobject", { name: "Box", type: "Cube" }, bearer(team.editor))).status).toBe(200);
    expect((await call("save_version", { name: "first" }, bearer(team.editor))).status).toBe(200);
    expect((await call("delete_version", { version_id: "v001" }, bearer(team.editor))).status).toBe(403);
  });

  it("a token's scope caps its holder's role: the owner's read token cannot write", async () => {
    const read = await call("create_token", { name: "read only", scope: "read" }, bearer(team.owner));
    const r = await call("create_gameobject", { name: "Nope", type: "Cube" }, bearer(read.body.result.token));
    expect(r.status).toBe(403);
    expect(r.body.error.details.token_scope).toBe("read");
    // And nobody holds a token above their role.
    const above = await call("create_token", { name: "too much", scope: "write" }, bearer(team.viewer));
    expect(above.status).toBe(403);
  });

  it("MCP enforces the same permissions: the viewer's call is refused, the editor's goes through", async () => {
    const mcp = (token: string, name: string, args: unknown) => post(`${kiln.url}/mcp`, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }, { ...bearer(token), accept: "application/json, text/event-stream" });
    const refused = await mcp(team.viewer, "create_gameobject", { name: "ViaMcp", type: "Cube" });
    expect(refused.body.result.isError).toBe(true);
    expect(JSON.parse(refused.body.result.content[0].text).error.code).toBe("FORBIDDEN");
    const done = await mcp(team.editor, "create_gameobject", { name: "ViaMcp", type: "Cube" });
    expect(done.body.result.isError).toBeFalsy();
  });

  it("a recipe runs with its caller's rights, checked per step", async () => {
    const yaml = "name: admin-step\ndescription: a step only an owner may run\nsteps:\n  - name: make\n    tool: create_gameobject\n    params: {name: FromRecipe, type: Cube, if_exists: replace}\n  - name: delete history\n    tool: delete_version\n    params: {version_id: v001}\n    on_error: continue\n";
    const run = await call("run_recipe", { yaml }, bearer(team.editor));
    expect(run.status).toBe(200);
    const [make, del] = run.body.result.steps;
    expect(make.status).toBe("succeeded");
    expect(del.status).toBe("failed");
    expect(del.error.code).toBe("FORBIDDEN");
    expect((await call("run_recipe", { yaml }, bearer(team.viewer))).status).toBe(403);
  });

  it("an owner manages members; the last owner stays", async () => {
    expect((await call("set_user_role", { user: team.ids.owner, role: "editor" }, bearer(team.owner))).body.error.code).toBe("LAST_OWNER");
    expect((await call("remove_user", { user: team.ids.owner }, bearer(team.owner))).body.error.code).toBe("LAST_OWNER");
    const users = (await call("list_users", {}, bearer(team.owner))).body.result.users;
    expect(users.map((u: { email: string; role: string }) => `${u.email}:${u.role}`).sort()).toEqual(["ada@example.com:editor", "ben@example.com:viewer", "olive@example.com:owner"]);
  });
});

/**
 * How long a revoked token's connection may stay open: 1 s, or ten times a round trip measured
 * just before (a loaded machine slows both alike). Revocation closes connections at once, not
 * on a periodic check, so this bound holds with room to spare.
 */
async function closeBound(): Promise<number> {
  const started = performance.now();
  await call("whoami", {}, bearer(team.owner));
  return Math.max(1000, 10 * (performance.now() - started));
}

describe("team mode: revocation, secrets at rest, rate limits, restarts", () => {
  it("a revoked token is refused on its next request and its open /events stream closes within 1 s", async () => {
    const created = await call("create_token", { name: "to revoke", scope: "read" }, bearer(team.viewer));
    const { token, id } = created.body.result;
    const stream = await fetch(`${kiln.url}/events`, { headers: bearer(token) });
    expect(stream.status).toBe(200);
    const ended = readUntilEnd(stream);
    const bound = await closeBound();
    const revoked = await call("revoke_token", { id }, bearer(team.viewer));
    expect(revoked.status).toBe(200);
    const answeredAt = performance.now();
    const endedAt = await Promise.race([ended, new Promise<number>((r) => setTimeout(() => r(Infinity), bound))]);
    expect(endedAt - answeredAt).toBeLessThan(bound);
    const next = await call("whoami", {}, bearer(token));
    expect(next.status).toBe(401);
    // Another member's token is an owner's to revoke.
    const editors = (await call("list_tokens", {}, bearer(team.editor))).body.result.tokens;
    expect((await call("revoke_token", { id: editors[0].id }, bearer(team.viewer))).status).toBe(403);
  });

  it("a revoked token's live-app connection on /bridge closes within 1 s", async () => {
    const { token, id } = (await call("create_token", { name: "blender", scope: "write", user: "ada@example.com" }, bearer(team.owner))).body.result;
    const ws = new WebSocket(`${kiln.url.replace("http", "ws")}/bridge`, { headers: bearer(token) });
    await new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("unexpected-response", (_q, r) => reject(new Error(`upgrade ${r.statusCode}`))); });
    const closed = new Promise<{ code: number; at: number }>((resolve) => ws.once("close", (code) => resolve({ code, at: performance.now() })));
    const bound = await closeBound();
    expect((await call("revoke_token", { id }, bearer(team.owner))).status).toBe(200);
    const answeredAt = performance.now();
    const { code, at } = await Promise.race([closed, new Promise<never>((_, no) => setTimeout(() => no(new Error("still open")), bound))]);
    expect(code).toBe(4401);
    expect(at - answeredAt).toBeLessThan(bound);
  });

  it("signing out everywhere ends every session of that person, and their open streams", async () => {
    const signIn = () => post(`${kiln.url}/api/auth/sign-in/email`, { email: "ada@example.com", password: "Ada password 1" });
    const a = await signIn();
    const b = await signIn();
    expect([a.status, b.status]).toEqual([200, 200]);
    const cookieA = a.response.headers.getSetCookie()[0].split(";")[0];
    const cookieB = b.response.headers.getSetCookie()[0].split(";")[0];
    const stream = await fetch(`${kiln.url}/events`, { headers: { cookie: cookieB } });
    const ended = readUntilEnd(stream);
    expect((await call("whoami", {}, { cookie: cookieB })).status).toBe(200);
    const bound = await closeBound();
    const out = await post(`${kiln.url}/api/auth/revoke-sessions`, {}, { cookie: cookieA, origin: kiln.url });
    expect(out.status).toBe(200);
    await Promise.race([ended, new Promise((_, no) => setTimeout(() => no(new Error("stream still open")), bound))]);
    expect((await call("whoami", {}, { cookie: cookieB })).status).toBe(401);
    expect((await call("whoami", {}, { cookie: cookieA })).status).toBe(401);
  });

  it("the database holds no token, session token, link secret or password as given", async () => {
    const files = ["kiln.db", "kiln.db-wal"].map((f) => path.join(kiln.home, f)).filter(existsSync);
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    // The scan reads the data: the members' emails are there.
    expect(bytes.includes("olive@example.com")).toBe(true);
    expect(team.secrets.length).toBeGreaterThanOrEqual(8);
    for (const secret of team.secrets) expect([secret.slice(0, 12), bytes.includes(secret)]).toEqual([secret.slice(0, 12), false]);
  });

  it("repeated bad passwords get 429 with Retry-After, and are in the audit log", async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await post(`${kiln.url}/api/auth/sign-in/email`, { email: "ben@example.com", password: `wrong ${i}` });
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(statuses.at(-1)).toBe(429);
    expect(last!.body.error.code).toBe("TOO_MANY_REQUESTS");
    expect(Number(last!.response.headers.get("retry-after"))).toBeGreaterThan(0);
    const log = (await call("get_audit_log", { action: "sign_in_failed" }, bearer(team.owner))).body.result;
    expect(log.entries.some((e: { actor: { name: string } }) => e.actor.name === "ben@example.com")).toBe(true);
  });

  it("members, tokens, sessions and the audit log persist across a restart", async () => {
    const before = (await call("get_audit_log", { limit: 500 }, bearer(team.owner))).body.result.total;
    await kiln.restart();
    expect((await call("whoami", {}, bearer(team.editor))).body.result.user.name).toBe("Ada");
    expect((await call("whoami", {}, { cookie: team.ownerCookie })).body.result.user.name).toBe("Olive");
    expect((await call("list_users", {}, bearer(team.owner))).body.result.users).toHaveLength(3);
    expect((await call("get_audit_log", {}, bearer(team.owner))).body.result.total).toBeGreaterThanOrEqual(before);
    // An owner exists: no new set-up link is printed.
    expect(kiln.log().match(/Set up the first owner/g)).toHaveLength(1);
  }, 300_000);
});

describe("team mode: the audit log records who did what", () => {
  it("token creation and revocation, members and roles are recorded with their actor", async () => {
    const entries = (await call("get_audit_log", { limit: 500 }, bearer(team.owner))).body.result.entries as { action: string; actor: { name: string }; target: { name: string } | null }[];
    const actions = new Set(entries.map((e) => e.action));
    for (const a of ["owner_set_up", "sign_in", "sign_in_failed", "member_added", "token_created", "token_revoked"]) expect(actions).toContain(a);
    expect(entries.find((e) => e.action === "member_added" && e.target?.name.includes("ada@example.com"))?.actor.name).toBe("Olive");
  });
});

describe("the bridge token and personal mode", () => {
  it("a raw upgrade from elsewhere with the project's bridge token is refused in team mode", async () => {
    const token = JSON.parse(readFileSync(path.join(kiln.home, "bridge.json"), "utf8")).token;
    const r = await rawRequest(`${kiln.url}/bridge`, { headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", authorization: `Bearer ${token}`, "x-forwarded-for": "203.0.113.9" } }).catch(() => ({ status: -1 }));
    expect(r.status).toBe(401);
  });
});
