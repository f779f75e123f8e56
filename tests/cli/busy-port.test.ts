/**
 * Issue 26: a second Kiln on a busy port logged EADDRINUSE but never exited and kept its project
 * lock. Now it says which port is taken and what to do, gives the project back and exits 2.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/server";

let blocker: Server;
let port: number;
const home = mkdtempSync(path.join(tmpdir(), "kiln-busy-port-"));
beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
  port = (blocker.address() as { port: number }).port;
});
afterAll(() => {
  blocker?.close();
  rmSync(home, { recursive: true, force: true });
});

describe("a port already in use", () => {
  it("exits 2 with a clear message and releases the project", async () => {
    const child = spawn(process.execPath, [path.join(ROOT, "bin/kiln.js")], {
      cwd: ROOT, env: { ...process.env, KILN_HOME: home, PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: "" }, stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    // Generous: a start on a loaded machine takes tens of seconds; the old behaviour never exits.
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    clearTimeout(timer);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`kiln: port ${port} on 127.0.0.1 is already in use by another program (another Kiln?); set PORT to a free port.`);
    expect(existsSync(path.join(home, "service.json")), "the owner's description is removed").toBe(false);
  }, 180_000);
});
