/**
 * A tool call over MCP Streamable HTTP against the same call over /tools (issue "AI clients": MCP
 * p50 <= 1.5x /tools, one connection), on the production build. Two clients per surface: fetch
 * (what the SDK's client uses; MCP through the SDK Client) and a keep-alive node:http socket that
 * sends the raw requests (the server's own cost, with little client overhead).
 * Run: npx tsx tests/bench/mcp-bench.ts  (BENCH_CALLS=500 by default)
 */
import { Agent, request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startServer } from "../helpers/server";
import { median, ms, timeEach } from "./bench-utils";

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const WARMUP = 50;

/** POSTs JSON to a path over one keep-alive socket; resolves to the parsed answer. */
function rawPoster(base: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return (path: string, payload: unknown): Promise<any> => new Promise((resolve, reject) => {
    const body = JSON.stringify(payload);
    const req = request({
      host: url.hostname, port: url.port, path, method: "POST", agent,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(body) },
    }, (res) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (data += d));
      res.on("end", () => (res.statusCode === 200 ? resolve(JSON.parse(data)) : reject(new Error(`${path}: ${res.statusCode} ${data}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const kiln = await startServer();
try {
  const raw = rawPoster(kiln.url);
  const client = new Client({ name: "kiln-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${kiln.url}/mcp`)));
  for (let i = 0; i < 5; i++) await kiln.ok("create_gameobject", { name: `Seed${i}`, type: "Cube", position: { x: i } });

  const viaFetch = async (tool: string, args: unknown) => {
    const r = await fetch(`${kiln.url}/tools/${tool}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(args) });
    if (r.status !== 200) throw new Error(`${tool}: ${r.status}`);
    await r.json();
  };
  const viaSdk = async (tool: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name: tool, arguments: args });
    if (r.isError) throw new Error(`${tool}: ${JSON.stringify(r.content)}`);
  };
  let rpcId = 0;
  const viaRawMcp = async (tool: string, args: unknown) => {
    const r = await raw("/mcp", { jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name: tool, arguments: args } });
    if (r.error || r.result.isError) throw new Error(`${tool}: ${JSON.stringify(r)}`);
  };
  const viaRawTools = async (tool: string, args: unknown) => { await raw(`/tools/${tool}`, args); };

  const cases: [string, (i: number) => Record<string, unknown>][] = [
    ["get_scene", () => ({})],
    ["create_gameobject", (i) => ({ name: `B${i}-${Math.random().toString(36).slice(2, 8)}`, type: "Empty" })],
  ];
  console.log(`${CALLS} sequential calls per row, interleaved, after ${WARMUP} warm-up calls; p50 latency`);
  for (const [tool, args] of cases) {
    for (const [client, tools, mcp] of [["fetch / SDK Client", viaFetch, viaSdk], ["node:http keep-alive", viaRawTools, viaRawMcp]] as const) {
      await timeEach(WARMUP, async (i) => { await tools(tool, args(i)); await mcp(tool, args(i)); });
      // Interleaved, so load from other processes and JIT warm-up weigh on both surfaces alike.
      const toolsTimes: number[] = [];
      const mcpTimes: number[] = [];
      await timeEach(CALLS, async (i) => {
        toolsTimes.push(...(await timeEach(1, () => tools(tool, args(i)))));
        mcpTimes.push(...(await timeEach(1, () => mcp(tool, args(i)))));
      });
      const toolsP50 = median(toolsTimes);
      const mcpP50 = median(mcpTimes);
      const ratio = mcpP50 / toolsP50;
      console.log(`${tool.padEnd(18)} ${client.padEnd(21)} /tools ${ms(toolsP50).padStart(9)}   /mcp ${ms(mcpP50).padStart(9)}   ratio ${ratio.toFixed(2)}x ${ratio <= 1.5 ? "(<= 1.5x: ok)" : "(> 1.5x: OVER TARGET)"}`);
    }
  }
  await client.close();
} finally {
  await kiln.stop();
}
