#!/usr/bin/env node
// The `kiln` executable. With no arguments it serves the tools over HTTP; other commands run
// TypeScript entry points through tsx, so the CLI uses the same server code as the service.
import { spawnSync } from "node:child_process";
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
  if (!existsSync(join(root, process.env.KILN_NEXT_DIST || ".next", "BUILD_ID"))) {
    console.error("kiln: no production build found; building once (npm run build)...");
    const built = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, stdio: "inherit" });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  const { default: next } = await import("next");
  const { createServer } = await import("node:http");
  const app = next({ dev: false, dir: root, hostname: host, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => (malformedPath(req.url) ? refuseMalformedPath(res) : handle(req, res)));
  server.keepAliveTimeout = 65_000;
  server.listen(port, host, () => {
    const address = server.address();
    const shown = typeof address === "object" && address ? address.port : port;
    console.log(`kiln: serving http://${host.includes(":") ? `[${host}]` : host}:${shown} (project ${process.cwd()})`);
    writeServiceFile(shown);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

// Next.js answers a plain-text 500 when it cannot decode a path (`/tools/%ED%A0%80` is not UTF-8),
// before any route runs: such a request is the client's error, so answer it here as one.
function malformedPath(url = "/") {
  const path = url.split("?")[0];
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

function refuseMalformedPath(res) {
  const body = JSON.stringify({ ok: false, error: { code: "INVALID_PATH", message: "The request path has a percent-escape that is not UTF-8." } });
  res.writeHead(400, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" });
  res.end(body);
}

// `.kiln/service.json` tells `kiln --run-recipe` that this project is being served, so it sends
// its steps here instead of changing the database behind this process (server/cli/service-file.ts).
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
