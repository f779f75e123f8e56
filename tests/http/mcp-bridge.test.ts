/**
 * `kiln mcp` beside a running service forwards to the service's /mcp instead of opening the
 * project in-process, so both surfaces share one working state (no divergence).
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

async function stdioClient(extra: Record<string, string> = {}) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), KILN_HOME: kiln.home, ...extra };
  delete env.DATABASE_URL;
  if (!extra.KILN_TOOLS) delete env.KILN_TOOLS;
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
});
