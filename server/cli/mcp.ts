/**
 * `kiln mcp`: the registry over MCP on stdin/stdout, for clients that launch a local process. It
 * serves the project in the working directory (KILN_HOME, DATABASE_URL as for the service) until
 * stdin closes or a signal arrives, then waits for calls in progress and closes the database.
 * stdout carries only protocol messages: everything else, console.log included, goes to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, selectTools } from "../api/mcp";
import { loadConfig } from "../config";
import { getKiln, stopKiln, type Kiln } from "../runtime";
import type { Caller } from "../teams/actor";
import { bridgeToService } from "./mcp-bridge";
import { thisCommand, tryClaimProject } from "../ownership/owner";

const USAGE = "Usage: kiln mcp   (serves the tools over MCP on stdin/stdout; KILN_TOOLS=group,... limits them)";

/**
 * Who the stdio server's calls are made as. Personal mode: the machine's user, as always. Team
 * mode: the person of the personal access token in KILN_TOKEN (its scope caps their role, as on
 * /mcp); without a valid one the command refuses to start, so an AI client never acts as nobody.
 */
async function stdioCaller(kiln: Kiln): Promise<Caller | undefined> {
  if (!kiln.teams.enabled) return undefined;
  const token = process.env.KILN_TOKEN;
  if (!token) throw new Error("this Kiln runs in team mode: set KILN_TOKEN to a personal access token (kiln token create) so calls are made as you.");
  const resolved = await kiln.teams.credentials.resolve(new Headers({ authorization: `Bearer ${token}` }), "mcp");
  if ("refusal" in resolved) throw new Error(`KILN_TOKEN was refused: ${resolved.refusal.message}`);
  return resolved.caller;
}

/** Runs the stdio MCP server; resolves to the exit code (0 after stdin closes, 2 on bad setup). */
export async function mcpCommand(args: string[]): Promise<number> {
  // A stray log line on stdout would corrupt the protocol stream.
  console.log = console.info = console.debug = console.error;
  if (args.length) {
    console.error(args.includes("--help") ? USAGE : `kiln mcp: unexpected arguments "${args.join(" ")}"\n${USAGE}`);
    return args.includes("--help") ? 0 : 2;
  }
  const ended = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  let tools;
  let kiln: Kiln | undefined;
  let caller: Caller | undefined;
  try {
    tools = selectTools(process.env.KILN_TOOLS);
    const config = loadConfig();
    // One process at a time owns the project (server/ownership): forward to the owner's URL.
    const claim = await tryClaimProject(config, thisCommand());
    if ("error" in claim) {
      if (!claim.owner?.url) throw claim.error;
      console.error(`kiln mcp: the Kiln service (pid ${claim.owner.pid}) serves this project; forwarding to ${claim.owner.url}/mcp`);
      await bridgeToService(claim.owner.url, tools, config.token, ended);
      return 0;
    }
    kiln = await getKiln();
    caller = await stdioCaller(kiln);
  } catch (e) {
    console.error(`kiln mcp: ${(e as Error).message}`);
    if (kiln) await stopKiln();
    return 2;
  }
  const { server, drain } = createMcpServer(kiln, tools, caller);
  await server.connect(new StdioServerTransport());
  console.error(`kiln mcp: serving ${tools.length} tools over stdio (data in ${kiln.config.home})`);
  await ended;
  await drain();
  await server.close();
  await stopKiln();
  return 0;
}
