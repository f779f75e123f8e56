#!/usr/bin/env node
// The `kiln` executable. With no arguments it serves the tools over HTTP; other commands run
// TypeScript entry points through tsx, so the CLI uses the same server code as the service.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
process.env.KILN_ROOT ??= root;

if (args.length === 0 || args[0] === "serve") {
  await serve();
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import(pathToFileURL(join(root, "server/cli/main.ts")).href);
  process.exitCode = await main(args);
}

async function serve() {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const host = process.env.HOST || "127.0.0.1";
  const port = Number(process.env.PORT || 8080);
  const loopback = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);
  if (!loopback && !process.env.KILN_TOKEN) {
    console.error(`kiln: refusing to listen on ${host} without KILN_TOKEN: anyone on the network could change your scenes.`);
    process.exit(2);
  }
  await ensureBuild();
  const { default: next } = await import("next");
  const { createServer } = await import("node:http");
  const app = next({ dev: false, dir: root, hostname: host, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => handle(req, res));
  server.keepAliveTimeout = 65_000;
  // Live applications connect over a WebSocket on this same port (docs/bridges.md). The endpoint is
  // TypeScript loaded through tsx; it shares the running Kiln through globalThis (server/runtime.ts).
  const { tsImport } = await import("tsx/esm/api");
  const { attachBridgeEndpoint } = await tsImport(pathToFileURL(join(root, "server/bridges/endpoint.ts")).href, import.meta.url);
  const closeBridges = attachBridgeEndpoint(server);
  server.listen(port, host, () => {
    const address = server.address();
    const shown = typeof address === "object" && address ? address.port : port;
    console.log(`kiln: serving http://${host.includes(":") ? `[${host}]` : host}:${shown} (project ${process.cwd()})`);
    writeServiceFile(shown);
  });
  const stop = () => {
    closeBridges();
    server.close(() => process.exit(0));
    // Keep-alive and bridge sockets must not hold the process after the answers in flight.
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

// Builds once when there is no production build. Rebuilding after a source change is `npm start`'s
// job (scripts/build.mjs --if-stale runs before this): started directly, as test harnesses do, the
// service never rebuilds a build folder that another running service may be serving from.
async function ensureBuild() {
  if (existsSync(join(root, process.env.KILN_NEXT_DIST || ".next", "BUILD_ID"))) return;
  const { build } = await import(pathToFileURL(join(root, "scripts/build.mjs")).href);
  const status = await build(false);
  if (status !== 0) process.exit(status);
}

// `.kiln/service.json` tells `kiln --run-recipe` that this project is being served, so it runs
// its recipe here instead of changing the database behind this process (server/cli/service-file.ts).
function writeServiceFile(port) {
  const file = join(resolve(process.env.KILN_HOME ?? ".kiln"), "service.json");
  const host = process.env.HOST || "127.0.0.1";
  const reach = /^(0\.0\.0\.0|::|\[::\])$/.test(host) ? "127.0.0.1" : host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ pid: process.pid, url: `http://${reach}:${port}` }) + "\n");
  } catch (e) {
    console.error(`kiln: could not write ${file} (${e.message}); kiln --run-recipe will not find this service`);
    return;
  }
  process.on("exit", () => {
    try {
      if (JSON.parse(readFileSync(file, "utf8")).pid === process.pid) rmSync(file);
    } catch { /* already gone or replaced */ }
  });
}
