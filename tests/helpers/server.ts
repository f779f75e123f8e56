/**
 * Runs the real service (bin/kiln.js, production build) as a child process for HTTP tests,
 * with its own data folder and, optionally, its own PostgreSQL database.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const PG_ADMIN_URL = process.env.KILN_TEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export type Provider = "sqlite" | "postgresql";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Creates a throw-away PostgreSQL database; fails with a clear message when none is reachable. */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `kiln_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(`PostgreSQL is not reachable at ${PG_ADMIN_URL} (${(e as Error).message}); start it or set KILN_TEST_PG_URL.`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface CallResult<T = any> { status: number; body: { ok: boolean; result: T; error: { code: string; message: string; details?: any } }; headers: Headers }

export interface KilnServer {
  url: string;
  home: string;
  env: Record<string, string>;
  /** The PostgreSQL database's URL, when the service runs on one. */
  databaseUrl?: string;
  /** Process id of the running service (of its latest start). */
  readonly pid: number;
  call<T = any>(tool: string, params?: unknown, init?: { method?: string; headers?: Record<string, string> }): Promise<CallResult<T>>;
  /** Result of a call that must succeed. */
  ok<T = any>(tool: string, params?: unknown): Promise<T>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
  log(): string;
}

export interface StartOptions {
  provider?: Provider; env?: Record<string, string>; home?: string; databaseUrl?: string;
  /** Working directory of the service, i.e. its project folder (./recipes); default ROOT. */
  cwd?: string;
}

/** Starts the service and waits until it answers. */
export async function startServer(opts: StartOptions = {}): Promise<KilnServer> {
  const home = opts.home ?? mkdtempSync(path.join(tmpdir(), "kiln-test-"));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  let databaseUrl = opts.databaseUrl;
  // KILN_TEST_PROVIDER=postgresql runs a suite written without a provider on PostgreSQL.
  const provider = opts.provider ?? (process.env.KILN_TEST_PROVIDER as Provider | undefined);
  if (!databaseUrl && provider === "postgresql") {
    pgDb = await createPgDatabase();
    databaseUrl = pgDb.url;
  }
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>), KILN_HOME: home, PORT: String(port), HOST: "127.0.0.1",
    NEXT_TELEMETRY_DISABLED: "1", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...opts.env,
  };
  if (!databaseUrl) delete env.DATABASE_URL;
  let child: ChildProcess;
  let output = "";
  const url = `http://127.0.0.1:${port}`;

  const launch = async () => {
    // KILN_TEST_NODE_ARGS: node flags for the service (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a bench).
    const nodeArgs = (process.env.KILN_TEST_NODE_ARGS ?? "").split(" ").filter(Boolean);
    child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, "bin/kiln.js")], { cwd: opts.cwd ?? ROOT, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.on("data", (d) => (output += d));
    child.stderr!.on("data", (d) => (output += d));
    const deadline = Date.now() + 150_000; // generous: a start takes 2-3 s quiet, 10-40 s on a loaded 2-core machine
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`kiln exited with ${child.exitCode}:\n${output}`);
      try {
        const r = await fetch(`${url}/tools`);
        if (r.status === 200 || r.status === 401) return;
      } catch { /* not up yet */ }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`kiln did not start within 150 s:\n${output}`);
  };
  const kill = async (signal: NodeJS.Signals = "SIGKILL") => {
    if (child.exitCode !== null || child.signalCode) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await exited;
  };
  await launch();

  const server: KilnServer = {
    url, home, env, databaseUrl,
    get pid() {
      return child.pid!;
    },
    async call(tool, params, init = {}) {
      const method = init.method ?? (params === undefined ? "POST" : "POST");
      let target = `${url}/tools/${tool}`;
      const headers: Record<string, string> = { ...init.headers };
      let body: string | undefined;
      if (method === "GET" && params && typeof params === "object") {
        target += `?${new URLSearchParams(params as Record<string, string>)}`;
      } else if (params !== undefined && method !== "GET") {
        body = typeof params === "string" ? params : JSON.stringify(params);
        headers["content-type"] ??= "application/json";
      }
      const r = await fetch(target, { method, headers, body });
      return { status: r.status, body: (await r.json()) as CallResult["body"], headers: r.headers };
    },
    async ok(tool, params) {
      const r = await server.call(tool, params ?? {});
      if (r.status !== 200) throw new Error(`${tool} failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.result;
    },
    kill,
    async restart() {
      await kill("SIGTERM");
      await launch();
    },
    async stop() {
      await kill("SIGTERM");
      if (!opts.home) rmSync(home, { recursive: true, force: true });
      await pgDb?.drop();
    },
    log: () => output,
  };
  return server;
}

/** A raw request with full control of headers (fetch may not send a foreign Host). */
export function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: any; headers: Record<string, string | string[] | undefined> }> {
  return import("node:http").then(({ request }) => new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "GET", headers: opts.headers }, (res) => {
      let data = "";
      res.on("data", (d) => (data += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : null, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(opts.body);
  }));
}

/** Runs bin/kiln.js as a process to completion; returns its exit code, stdout and stderr. */
export function runKiln(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js"), ...args], { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end(opts.stdin ?? "");
  });
}
