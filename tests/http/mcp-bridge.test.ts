/**
 * `kiln mcp` beside a running service forwards to the service's /mcp instead of opening the
 * project in-process, so both surfaces share one working state (no divergence).
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runKiln, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

function bridgeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), KILN_HOME: kiln.home, ...extra };
  delete env.DATABASE_URL;
  if (!extra.KILN_TOOLS) delete env.KILN_TOOLS;
  return env;
}

async function stdioClient(extra: Record<string, string> = {}) {
  const env = bridgeEnv(extra);
  const client = new Client({ name: "bridge-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, "bin/kiln.js"), "mcp"], cwd: ROOT, env, stderr: "pipe" }));
  return client;
}

describe("kiln mcp beside a running service", () => {
  it("forwards calls to the service, which sees them at once", async () => {
    const client = await stdioClient();
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("create_gameobject");
      const r = (await client.callTool({ name: "create_gameobject", arguments: { name: "ViaStdio", type: "Cube" } })) as { isError?: boolean };
      expect(r.isError).toBeFalsy();
      const scene = await kiln.ok("get_scene", {});
      expect(scene.objects.map((o: { name: string }) => o.name)).toContain("ViaStdio");
      const again = (await client.callTool({ name: "create_gameobject", arguments: { name: "ViaStdio", type: "Cube" } })) as { isError?: boolean; content: { text: string }[] };
      expect(again.isError).toBe(true);
      expect(JSON.parse(again.content[0].text).error.code).toBe("NAME_CONFLICT");
    } finally {
      await client.close();
    }
  });

  it("applies its own KILN_TOOLS to what it forwards", async () => {
    const client = await stdioClient({ KILN_TOOLS: "version_control" });
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("save_version");
      expect(tools).not.toContain("create_gameobject");
      const r = (await client.callTool({ name: "create_gameobject", arguments: { name: "Hidden", type: "Cube" } })) as { isError?: boolean; content: { text: string }[] };
      expect(r.isError).toBe(true);
      expect(JSON.parse(r.content[0].text).error.code).toBe("UNKNOWN_TOOL");
    } finally {
      await client.close();
    }
  });

  it("answers every request it was sent before stdin closed, introducing itself as the service's /mcp does", async () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "create_gameobject", arguments: { name: "PipedThenClosed", type: "Cube" } } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "save_version", arguments: { message: "hidden" } } },
    ];
    const r = await runKiln(["mcp"], { env: bridgeEnv({ KILN_TOOLS: "editor" }) as NodeJS.ProcessEnv, stdin: lines.map((l) => `${JSON.stringify(l)}\n`).join("") });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("forwarding to");
    // JSON-RPC answers may come in any order (a refused call is answered before the forwarded ones).
    const replies = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).sort((a, b) => a.id - b.id);
    expect(replies.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    const direct = await (await fetch(`${kiln.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(lines[0]) })).json();
    expect(replies[0].result.serverInfo).toEqual(direct.result.serverInfo);
    expect(replies[0].result.serverInfo.title).toBe("Kiln");
    expect(replies[0].result.instructions).toBe(direct.result.instructions);
    expect(replies[1].result.tools.map((t: { name: string }) => t.name)).toContain("create_gameobject");
    expect(replies[2].result.structuredContent.object.name).toBe("PipedThenClosed");
    expect((await kiln.ok("get_scene", {})).objects.map((o: { name: string }) => o.name)).toContain("PipedThenClosed");
    // save_version is not in "editor": refused with the in-process wording, which names KILN_TOOLS.
    expect(replies[3].result.isError).toBe(true);
    expect(JSON.parse(replies[3].result.content[0].text).error.message).toBe('The tool "save_version" is not exposed here (KILN_TOOLS).');
  });
});
