/**
 * MCP serves the registry, over Streamable HTTP (/mcp) and stdio (`kiln mcp`), with the SDK's own
 * client: every registry tool with its schema and annotations, calls with the same effects and the
 * same error codes and messages as /tools, screenshots as PNG image content, the Host/Origin/token
 * checks of /tools, and KILN_TOOLS limiting the tools to some groups.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inputJsonSchema } from "../../server/api/catalogue";
import { allTools } from "../../server/tools";
import { rawRequest, ROOT, runKiln, startServer, type KilnServer } from "../helpers/server";

const TOKEN = "mcp-test-token-123";
let http: KilnServer;
let guarded: KilnServer;
const stdioHome = mkdtempSync(path.join(tmpdir(), "kiln-mcp-stdio-"));

beforeAll(async () => {
  http = await startServer();
  guarded = await startServer({ env: { KILN_TOKEN: TOKEN, KILN_TOOLS: "version_control,get_scene" } });
});
afterAll(async () => {
  await http?.stop();
  await guarded?.stop();
  rmSync(stdioHome, { recursive: true, force: true });
});

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "kiln-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

const httpTransport = (server: KilnServer, headers: Record<string, string> = {}) =>
  new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } });

function stdioEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), KILN_HOME: stdioHome };
  delete env.KILN_TOOLS;
  delete env.DATABASE_URL;
  return { ...env, ...extra };
}

const stdioTransport = (extra: Record<string, string> = {}) =>
  new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, "bin/kiln.js"), "mcp"], cwd: ROOT, env: stdioEnv(extra), stderr: "pipe" });

type ToolResult = { isError?: boolean; content: { type: string; text?: string; data?: string; mimeType?: string }[]; structuredContent?: any };
const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
const errorOf = (r: ToolResult) => {
  expect(r.isError).toBe(true);
  return JSON.parse(r.content[0].text!);
};

const kinds: Record<string, () => Promise<Client>> = {
  "Streamable HTTP": () => connect(httpTransport(http)),
  stdio: () => connect(stdioTransport()),
};

describe.each(Object.keys(kinds))("MCP over %s", (kind) => {
  let client: Client;
  beforeAll(async () => { client = await kinds[kind](); });
  afterAll(async () => { await client?.close(); });

  it("lists every registry tool with its description, input schema and annotations", async () => {
    const { tools } = await client.listTools();
    const registry = allTools();
    expect(tools.map((t) => t.name).sort()).toEqual(registry.map((t) => t.name).sort());
    for (const tool of registry) {
      const listed = tools.find((t) => t.name === tool.name)!;
      const { $schema: _, ...input } = inputJsonSchema(tool);
      expect(listed.description).toBe(tool.description);
      expect(listed.inputSchema).toEqual(input);
      expect(listed.annotations, tool.name).toMatchObject({
        readOnlyHint: tool.access === "read",
        destructiveHint: !!tool.destructive,
        idempotentHint: tool.access === "read" || !!tool.idempotent,
      });
    }
  });

  it("creates a game object, with the result as structured content and as JSON text", async () => {
    const r = await call(client, "create_gameobject", { name: "McpCube", type: "Cube", position: { x: "1.5", y: 2, z: 3 } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.object).toMatchObject({ name: "McpCube", type: "Cube", position: { x: 1.5, y: 2, z: 3 } });
    expect(JSON.parse(r.content[0].text!)).toEqual(r.structuredContent);
    const scene = await call(client, "list_objects", {});
    expect(JSON.stringify(scene.structuredContent)).toContain("McpCube");
  });

  it("returns take_screenshot's PNG as image content of the requested size", async () => {
    const r = await call(client, "take_screenshot", { width: 160, height: "90" });
    expect(r.isError).toBeFalsy();
    const image = r.content.find((c) => c.type === "image")!;
    expect(image.mimeType).toBe("image/png");
    const bytes = Buffer.from(image.data!, "base64");
    const png = PNG.sync.read(bytes);
    expect([png.width, png.height]).toEqual([160, 90]);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(r.structuredContent.sha256);
  });

  it("answers bad parameters with a tool error carrying the code and message of /tools", async () => {
    const params = { name: "", type: "Cone", colour: "red" };
    const overHttp = await http.call("create_gameobject", params);
    expect(overHttp.status).toBe(400);
    expect(errorOf(await call(client, "create_gameobject", params))).toEqual(overHttp.body);
    expect(errorOf(await call(client, "take_screenshot", { width: 1 })).error.code).toBe("INVALID_PARAMS");
  });

  it("answers a state conflict with the same code and message as /tools", async () => {
    // Over HTTP both surfaces share one service; over stdio each has its own: make the name exist in both.
    const params = { name: "Taken", type: "Empty" };
    expect((await call(client, "create_gameobject", params)).isError).toBeFalsy();
    await http.call("create_gameobject", params);
    const overHttp = await http.call("create_gameobject", params);
    expect(overHttp.status).toBe(409);
    expect(errorOf(await call(client, "create_gameobject", params))).toEqual(overHttp.body);
  });

  it("answers an unknown tool with UNKNOWN_TOOL", async () => {
    expect(errorOf(await call(client, "make_coffee", {})).error.code).toBe("UNKNOWN_TOOL");
  });
});

describe("MCP over Streamable HTTP: the checks of /tools", () => {
  const post = (server: KilnServer, headers: Record<string, string>, body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}') =>
    fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });

  it("acts on the same state as /tools", async () => {
    const client = await connect(httpTransport(http));
    expect((await call(client, "create_gameobject", { name: "SharedCube", type: "Cube" })).isError).toBeFalsy();
    await client.close();
    expect(JSON.stringify(await http.ok("list_objects", {}))).toContain("SharedCube");
  });

  it("refuses a foreign Origin", async () => {
    await expect(connect(httpTransport(http, { origin: "http://evil.example" }))).rejects.toMatchObject({ code: 403 });
    const r = await post(http, { origin: "http://evil.example" });
    expect(r.status).toBe(403);
    expect((await r.json()).error.code).toBe("ORIGIN_REFUSED");
  });

  it("refuses a foreign Host (DNS rebinding)", async () => {
    const r = await rawRequest(`${http.url}/mcp`, {
      method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      headers: { host: "evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("HOST_REFUSED");
  });

  it("refuses a missing or wrong token when KILN_TOKEN is set, and serves with it", async () => {
    await expect(connect(httpTransport(guarded))).rejects.toMatchObject({ code: 401 });
    await expect(connect(httpTransport(guarded, { authorization: "Bearer wrong-token-000" }))).rejects.toMatchObject({ code: 401 });
    const r = await post(guarded, {});
    expect(r.status).toBe(401);
    expect((await r.json()).error.code).toBe("UNAUTHORIZED");
    const client = await connect(httpTransport(guarded, { authorization: `Bearer ${TOKEN}` }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });

  it("limits the tools to the KILN_TOOLS groups and names; /tools keeps them all", async () => {
    const client = await connect(httpTransport(guarded, { authorization: `Bearer ${TOKEN}` }));
    const { tools } = await client.listTools();
    const expected = allTools().filter((t) => t.group === "version_control" || t.name === "get_scene").map((t) => t.name);
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    expect(errorOf(await call(client, "create_gameobject", { name: "A", type: "Cube" })).error).toMatchObject({ code: "UNKNOWN_TOOL", message: expect.stringContaining("KILN_TOOLS") });
    await client.close();
    const direct = await guarded.call("create_gameobject", { name: "A", type: "Cube" }, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(direct.status).toBe(200);
  });

  it("answers GET and DELETE with 405 (stateless: no sessions, no server-sent stream)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const r = await fetch(`${http.url}/mcp`, { method, headers: { accept: "text/event-stream" } });
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    }
  });

  it("refuses a body over the limit with 413", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_scene", arguments: { name: "x".repeat(2 * 1024 * 1024) } } });
    expect((await post(http, {}, big)).status).toBe(413);
  });
});

/** Runs `kiln mcp` with these stdin lines; returns its exit code, stdout and stderr. */
function runStdio(lines: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runKiln(["mcp"], { env: stdioEnv(env) as NodeJS.ProcessEnv, stdin: lines.map((l) => `${l}\n`).join("") });
}

describe("kiln mcp (stdio)", () => {
  it("keeps the project's data: what it created is there for the HTTP service", async () => {
    const client = await connect(stdioTransport());
    expect((await call(client, "create_gameobject", { name: "KeptCube", type: "Cube" })).isError).toBeFalsy();
    await client.close();
    const service = await startServer({ home: stdioHome });
    try {
      const objects = await service.ok("list_objects", {});
      expect(JSON.stringify(objects)).toContain("KeptCube");
    } finally {
      await service.stop();
    }
  });

  it("writes only protocol messages to stdout and exits 0 when stdin closes", async () => {
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const create = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "create_gameobject", arguments: { name: "RawCube", type: "Cube" } } };
    const r = await runStdio([JSON.stringify(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}', JSON.stringify(create)]);
    expect(r.code).toBe(0);
    const messages = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(messages.map((m) => [m.jsonrpc, m.id])).toEqual([["2.0", 1], ["2.0", 2]]);
    expect(messages[1].result.structuredContent.object.name).toBe("RawCube");
    expect(r.stderr).toContain("kiln mcp: serving");
  });

  it("limits the tools to KILN_TOOLS groups", async () => {
    const client = await connect(stdioTransport({ KILN_TOOLS: "editor" }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(allTools().filter((t) => t.group === "editor").map((t) => t.name).sort());
    await client.close();
  });

  it("refuses to start with an unknown KILN_TOOLS entry (exit 2, a message on stderr)", async () => {
    const r = await runStdio([], { KILN_TOOLS: "editr" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('KILN_TOOLS names unknown groups or tools: editr');
    expect(r.stdout).toBe("");
  });
});
