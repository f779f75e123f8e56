/**
 * `kiln mcp` (stdio) in team mode, with no service running (in-process). Invariants: the calls are
 * made as the person of KILN_TOKEN, through the client "mcp", capped by the token's scope; without
 * a token, or with a revoked one, the command refuses to start and says why.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, runKiln } from "../helpers/server";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project() {
  const dir = mkdtempSync(path.join(tmpdir(), "kiln-cli-mcp-team-"));
  dirs.push(dir);
  const env: Record<string, string> = { ...(process.env as Record<string, string>), KILN_HOME: path.join(dir, ".kiln"), KILN_AUTH: "team" };
  delete env.KILN_TOKEN;
  delete env.DATABASE_URL;
  delete env.KILN_TOOLS;
  return { dir, env };
}

const text = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0].text);

describe("kiln mcp in team mode", () => {
  it("runs every call as KILN_TOKEN's person; refuses to start without a valid token", async () => {
    const { dir, env } = project();
    const run = (args: string[], stdin?: string, extra: Record<string, string> = {}) => runKiln(args, { cwd: dir, env: { ...env, ...extra } as NodeJS.ProcessEnv, stdin });
    // Members and tokens are prepared in personal mode (they take effect in team mode).
    const { KILN_AUTH: _team, ...personal } = env;
    const prepare = (args: string[], stdin?: string) => runKiln(args, { cwd: dir, env: personal as NodeJS.ProcessEnv, stdin });
    expect((await prepare(["users", "add", "ada@example.com", "--name", "Ada", "--role", "editor", "--password-stdin"], "ada password 1\n")).code).toBe(0);
    const write = (await prepare(["token", "create", "--name", "claude desktop", "--scope", "write", "--user", "ada@example.com"])).stdout.trim();
    const read = (await prepare(["token", "create", "--name", "reader", "--scope", "read", "--user", "ada@example.com"])).stdout.trim();
    expect(write).toMatch(/^kiln_/);

    const client = new Client({ name: "stdio-team-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, "bin/kiln.js"), "mcp"], cwd: dir, env: { ...env, KILN_TOKEN: write }, stderr: "pipe" }));
    try {
      expect(text(await client.callTool({ name: "whoami", arguments: {} }))).toMatchObject({ mode: "team", user: { name: "Ada", role: "editor" }, client: "mcp", token: { name: "claude desktop", scope: "write" } });
      const made = (await client.callTool({ name: "create_gameobject", arguments: { name: "StdioBox", type: "Cube" } })) as { isError?: boolean };
      expect(made.isError).toBeFalsy();
      // Ada is an editor: an owner's tool is refused, naming the role.
      const admin = (await client.callTool({ name: "list_users", arguments: {} })) as { isError?: boolean };
      expect(admin.isError).toBe(true);
      expect(text(admin).error.code).toBe("FORBIDDEN");
    } finally {
      await client.close();
    }

    const reader = new Client({ name: "stdio-team-test", version: "1.0.0" });
    await reader.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, "bin/kiln.js"), "mcp"], cwd: dir, env: { ...env, KILN_TOKEN: read }, stderr: "pipe" }));
    try {
      const refused = await reader.callTool({ name: "create_gameobject", arguments: { name: "Nope", type: "Cube" } });
      expect(text(refused).error.code).toBe("FORBIDDEN");
    } finally {
      await reader.close();
    }

    const none = await run(["mcp"], "");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("set KILN_TOKEN");
    const bad = await run(["mcp"], "", { KILN_TOKEN: "kiln_not_a_token" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("KILN_TOKEN was refused");
  }, 300_000);
});
