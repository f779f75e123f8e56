#!/usr/bin/env node
// The `kiln` executable. With no arguments it serves the tools over HTTP; other commands run
// TypeScript entry points through tsx, so the CLI uses the same server code as the service.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
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
  // One owner per project (server/ownership): a second `kiln` on it exits 2 naming the first.
  // Claimed while Next.js loads (neither waits for the other); nothing listens before it is ours.
  let claimed;
  globalThis[Symbol.for("kiln.ownership.launcher")] = new Promise((resolve) => (claimed = resolve));
  const claiming = import("tsx/esm/api")
    .then(({ tsImport }) => tsImport(pathToFileURL(join(root, "server/ownership/serve.ts")).href, import.meta.url))
    .then(({ claimForService }) => claimForService())
    .finally(() => claimed());
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
  const ownership = await claiming;
  const server = createServer((req, res) => handle(req, res));
  server.keepAliveTimeout = 65_000;
  server.listen(port, host, () => {
    const address = server.address();
    const shown = typeof address === "object" && address ? address.port : port;
    console.log(`kiln: serving http://${host.includes(":") ? `[${host}]` : host}:${shown} (project ${process.cwd()})`);
    // `.kiln/service.json` now names the URL, so `kiln --run-recipe` and `kiln mcp` forward here.
    const reach = /^(0\.0\.0\.0|::|\[::\])$/.test(host) ? "127.0.0.1" : host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    ownership.announce(`http://${reach}:${shown}`).catch((e) => console.error(`kiln: could not record this service's URL (${e.message}); kiln --run-recipe will not find it`));
  });
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
