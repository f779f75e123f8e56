/**
 * `kiln users` and `kiln token` as processes. Invariants: with no service they work in-process on
 * the project's data as the operator; with a team-mode service running they call it with the
 * operator credential of .kiln/team.json (or KILN_TOKEN, which makes the call that person's), so
 * roles apply; a token printed by `token create` works over HTTP until `token revoke`.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runKiln, startServer, type KilnServer } from "../helpers/server";
import { bearer, post } from "../helpers/team";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project() {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-cli-teams-"));
  dirs.push(dir);
  const env: NodeJS.ProcessEnv = { ...process.env, KILN_HOME: path.join(dir, ".kiln") };
  delete env.KILN_TOKEN;
  delete env.KILN_AUTH;
  return { dir, env };
}

describe("kiln users / kiln token without a service (in-process, as the operator)", () => {
  it("adds, lists, resets, removes members and creates, lists, revokes tokens", async () => {
    const { dir, env } = project();
    const run = (args: string[], stdin?: string) => runKiln(args, { cwd: dir, env, stdin });
    const added = await run(["users", "add", "ada@example.com", "--name", "Ada", "--role", "owner", "--password-stdin"], "ada password 1\n");
    expect(added.stderr).toBe("");
    expect([added.code, added.stdout.trim()]).toEqual([0, "Added ada@example.com (owner); they can sign in now."]);
    const invited = await run(["users", "add", "ben@example.com", "--name", "Ben", "--role", "viewer"]);
    expect(invited.code).toBe(0);
    expect(invited.stdout).toMatch(/^http:\/\/127\.0\.0\.1:8080\/invite\/[A-Za-z0-9_-]{43}\n/);
    const listed = await run(["users", "list", "--json"]);
    expect(JSON.parse(listed.stdout).map((u: { email: string; role: string }) => `${u.email}:${u.role}`)).toEqual(["ada@example.com:owner"]);
    const reset = await run(["users", "reset-password", "ada@example.com"]);
    expect(reset.stdout).toMatch(/\/reset\/[A-Za-z0-9_-]{43}/);

    const created = await run(["token", "create", "--name", "claude on laptop", "--scope", "write", "--expires", "30d", "--user", "ada@example.com"]);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^kiln_[A-Za-z0-9]{48}$/);
    expect(created.stderr).toContain('Token "claude on laptop" for Ada');
    const tokens = JSON.parse((await run(["token", "list", "--all", "--json"])).stdout);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ name: "claude on laptop", scope: "write", user: { name: "Ada" } });
    expect(new Date(tokens[0].expires_at).getTime() - Date.now()).toBeGreaterThan(29 * 86400_000);
    expect(JSON.stringify(tokens)).not.toContain(token);
    expect((await run(["token", "revoke", tokens[0].id])).code).toBe(0);
    expect(JSON.parse((await run(["token", "list", "--all", "--json"])).stdout)).toEqual([]);

    const last = await run(["users", "remove", "ada@example.com"]);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("LAST_OWNER");
    // .kiln/team.json (the operator credential) is readable by its owner only.
    expect(statSync(path.join(dir, ".kiln", "team.json")).mode & 0o777).toBe(0o600);
  }, 600_000);

  it("explains its usage (exit 2) and refuses a bad scope or lifetime (exit 1)", async () => {
    const { dir, env } = project();
    const run = (args: string[]) => runKiln(args, { cwd: dir, env });
    expect((await run(["users"])).code).toBe(2);
    expect((await run(["token", "create"])).code).toBe(2);
    expect((await run(["users", "frobnicate"])).stderr).toContain('unknown command "users frobnicate"');
    expect((await run(["users", "add", "x@example.com", "--name", "X", "--role", "owner", "--password-stdin"])).code).toBe(2); // empty stdin
    await runKiln(["users", "add", "x@example.com", "--name", "X", "--role", "owner", "--password-stdin"], { cwd: dir, env, stdin: "long enough 1\n" });
    const bad = await run(["token", "create", "--name", "t", "--expires", "soon", "--user", "x@example.com"]);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("is not a lifetime")]);
  }, 600_000);
});

describe("kiln users / kiln token against a running team-mode service", () => {
  let kiln: KilnServer | undefined;
  afterAll(async () => kiln?.stop());

  it("uses the operator credential from this machine, or KILN_TOKEN as that person", async () => {
    const { dir, env } = project();
    kiln = await startServer({ cwd: dir, home: path.join(dir, ".kiln"), env: { KILN_AUTH: "team" } });
    const run = (args: string[], extra: Record<string, string> = {}, stdin?: string) => runKiln(args, { cwd: dir, env: { ...env, ...extra }, stdin });
    expect((await run(["users", "add", "olive@example.com", "--name", "Olive", "--role", "owner", "--password-stdin"], {}, "olive password 1\n")).code).toBe(0);
    expect((await run(["users", "add", "ben@example.com", "--name", "Ben", "--role", "viewer", "--password-stdin"], {}, "ben password 1\n")).code).toBe(0);
    const token = (await run(["token", "create", "--name", "ci", "--scope", "read", "--user", "ben@example.com"])).stdout.trim();
    // The service made it: the token works there at once.
    const who = await post(`${kiln.url}/tools/whoami`, {}, bearer(token));
    expect(who.body.result).toMatchObject({ user: { name: "Ben", role: "viewer" }, token: { name: "ci", scope: "read" } });
    // The audit log names the operator as the actor.
    const audit = await post(`${kiln.url}/tools/get_audit_log`, { action: "token_created" }, { authorization: `Bearer ${JSON.parse(readFileSync(path.join(dir, ".kiln", "team.json"), "utf8")).operator}` });
    expect(audit.body.result.entries[0].actor.name).toMatch(/\(operator\)$/);

    // As Ben (KILN_TOKEN): his own tokens, but not the members.
    const mine = await run(["token", "list", "--json"], { KILN_TOKEN: token });
    expect(JSON.parse(mine.stdout).map((t: { name: string }) => t.name)).toEqual(["ci"]);
    const refused = await run(["users", "list"], { KILN_TOKEN: token });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("needs the owner role");

    const id = JSON.parse(mine.stdout)[0].id;
    expect((await run(["token", "revoke", id])).code).toBe(0);
    expect((await post(`${kiln.url}/tools/whoami`, {}, bearer(token))).status).toBe(401);
  }, 600_000);
});
