#!/usr/bin/env node
// The `kiln` executable. With no arguments it serves the tools over HTTP; other commands run
// TypeScript entry points through tsx, so the CLI uses the same server code as the service.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
process.env.KILN_ROOT ??= root;

if (args.length === 0 || args[0] === "serve") {
  const extra = args.slice(1).filter((a) => a !== "--team");
  if (extra.length) {
    console.error(`kiln serve: unexpected "${extra.join(" ")}" (kiln serve [--team])`);
    process.exit(2);
  }
  // Team mode (docs/teams.md): everyone signs in; KILN_AUTH=team does the same.
  if (args.includes("--team")) process.env.KILN_AUTH = "team";
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
  // Team mode asks everyone for a credential, so it may listen on the network.
  if (!loopback && !process.env.KILN_TOKEN && process.env.KILN_AUTH !== "team") {
    console.error(`kiln: refusing to listen on ${host} without KILN_TOKEN or team mode (KILN_AUTH=team): anyone on the network could change your scenes.`);
    process.exit(2);
  }
  // One owner per project (server/ownership): a second `kiln` on it exits 2 naming the first.
  // Claimed while Next.js loads (neither waits for the other); nothing listens before it is ours.
  let claimed;
  globalThis[Symbol.for("kiln.ownership.launcher")] = new Promise((resolve) => (claimed = resolve));
  const claiming = loadLauncherModule("ownership-serve", "server/ownership/serve.ts")
    .then(({ claimForService }) => claimForService())
    .finally(() => claimed());
  await ensureBuild();
  const { default: next } = await import("next");
  const { createServer } = await import("node:http");
  const app = next({ dev: false, dir: root, hostname: host, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const ownership = await claiming;
  const server = createServer((req, res) => {
    // The TCP peer, for sign-in rate limits and the audit log (server/teams/client-ip.ts); a
    // client's own header of that name is replaced, never trusted.
    req.headers["x-kiln-peer"] = req.socket.remoteAddress ?? "";
    // X-Forwarded-For as the client sent it: Next.js adds its own before any route runs.
    const forwarded = req.headers["x-forwarded-for"];
    if (forwarded) req.headers["x-kiln-forwarded-for"] = Array.isArray(forwarded) ? forwarded.join(", ") : forwarded;
    else delete req.headers["x-kiln-forwarded-for"];
    return malformedPath(req.url) ? refuseMalformedPath(res) : handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  // Live applications connect over a WebSocket on this same port (docs/bridges.md). The endpoint is
  // TypeScript loaded through tsx on the first upgrade (a service no app connects to never pays for
  // it); it shares the running Kiln through globalThis (server/runtime.ts).
  let bridge;
  const loadBridge = () => (bridge ??= loadLauncherModule("bridge-endpoint", "server/bridges/endpoint.ts")
    .then(({ createBridgeEndpoint }) => createBridgeEndpoint()));
  server.on("upgrade", (req, socket, head) => {
    loadBridge().then((endpoint) => endpoint.handleUpgrade(req, socket, head), (e) => {
      console.error("kiln: the bridge endpoint could not load:", e);
      socket.destroy();
    });
  });
  const closeBridges = () => void bridge?.then((endpoint) => endpoint.close(), () => undefined);
  // A port already taken (another Kiln, another program) or not ours to take: say so, give the
  // project back and exit, instead of holding the project lock with nothing listening (issue 26).
  server.once("error", (error) => {
    const why = error.code === "EADDRINUSE" ? `port ${port} on ${host} is already in use by another program (another Kiln?); set PORT to a free port`
      : error.code === "EACCES" ? `no permission to listen on port ${port} on ${host}; set PORT to a port above 1023`
      : error.code === "EADDRNOTAVAIL" ? `${host} is not an address of this machine; set HOST`
      : `cannot listen on ${host}:${port} (${error.message})`;
    console.error(`kiln: ${why}.`);
    closeBridges();
    ownership.release().catch(() => undefined).finally(() => process.exit(2));
  });
  server.listen(port, host, () => {
    const address = server.address();
    const shown = typeof address === "object" && address ? address.port : port;
    console.log(`kiln: serving http://${host.includes(":") ? `[${host}]` : host}:${shown} (project ${process.cwd()})`);
    // `.kiln/service.json` now names the URL, so `kiln --run-recipe`, `kiln mcp` and `kiln blender` find it.
    const reach = /^(0\.0\.0\.0|::|\[::\])$/.test(host) ? "127.0.0.1" : host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    ownership.announce(`http://${reach}:${shown}`).catch((e) => console.error(`kiln: could not record this service's URL (${e.message}); kiln --run-recipe will not find it`));
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

/**
 * A TypeScript module the launcher runs outside Next.js: compiled by the build (scripts/build.mjs)
 * when there is one, else through tsx (a first start, before anything was built).
 */
async function loadLauncherModule(name, source) {
  const built = join(root, process.env.KILN_NEXT_DIST || ".next", "kiln-launcher", `${name}.mjs`);
  if (existsSync(built)) return import(pathToFileURL(built).href);
  const { tsImport } = await import("tsx/esm/api");
  const loaded = await tsImport(pathToFileURL(join(root, source)).href, import.meta.url);
  // tsx turns source maps on for the whole process; left on, Node parses the source map of every
  // Next.js module loaded after it.
  process.setSourceMapsEnabled(false);
  return loaded;
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
