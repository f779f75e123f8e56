/**
 * `/bridge`: the WebSocket endpoint live applications connect to, on the service's own port
 * (docs/bridges.md, "Who connects to whom"). bin/kiln.js loads it on the first HTTP upgrade and
 * hands it every upgrade. Requests are
 * checked before the upgrade: no browser (Origin), loopback Host and peer, the bridge token.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { isLoopbackHost } from "../config";
import type { Kiln } from "../runtime";
import { MAX_FRAME } from "./protocol";
import { BridgeSession } from "./session";

export const BRIDGE_PATH = "/bridge";

/**
 * The running Kiln, which Next.js's instrumentation starts (server/runtime.ts keeps it on
 * globalThis). Read from there, not imported: bin/kiln.js loads this file through tsx, and
 * importing the runtime would compile a second copy of the whole server at every start.
 */
function runningKiln(): Promise<Kiln> {
  const started = (globalThis as Record<symbol, Promise<Kiln> | undefined>)[Symbol.for("kiln.runtime")];
  return started ?? Promise.reject(new Error("Kiln has not started"));
}

function matches(given: string, expected: string | undefined): boolean {
  if (!expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const hostName = (host: string) => (host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]);

/** Why an upgrade request is refused, or null. */
export function refuseUpgrade(req: IncomingMessage, kiln: Kiln): { status: number; message: string } | null {
  if (new URL(req.url ?? "/", "http://x").pathname !== BRIDGE_PATH) return { status: 404, message: "Not found" };
  if (req.headers.origin !== undefined) return { status: 403, message: "Browsers may not connect to the bridge" };
  const host = req.headers.host ?? "";
  const { config } = kiln;
  if (!isLoopbackHost(hostName(host)) && !config.allowedHosts.includes(host) && !config.allowedHosts.includes(hostName(host)))
    return { status: 403, message: `Host "${host}" is not served` };
  if (isLoopbackHost(config.host) && !isLoopbackHost(req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? ""))
    return { status: 403, message: "Only this machine may connect" };
  const auth = req.headers.authorization ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
  if (!matches(token, kiln.live.credentials.token) && !matches(token, config.token))
    return { status: 401, message: "A valid 'Authorization: Bearer <bridge token>' header is required" };
  return null;
}

/** The bridge endpoint: what to do with an HTTP upgrade, and closing every connection (shutdown). */
export function createBridgeEndpoint(): { handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void; close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  return {
    handleUpgrade(req, socket, head) {
      void (async () => {
        let kiln: Kiln;
        try {
          kiln = await runningKiln();
        } catch {
          return reject(socket, 503, "Kiln is not running");
        }
        const refusal = refuseUpgrade(req, kiln);
        if (refusal) return reject(socket, refusal.status, refusal.message);
        wss.handleUpgrade(req, socket, head, (ws) => void kiln.live.accept(new BridgeSession(ws)));
      })();
    },
    close() {
      for (const ws of wss.clients) ws.close(1001, "Kiln is stopping");
      wss.close();
    },
  };
}

function reject(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ ok: false, error: { code: status === 401 ? "UNAUTHORIZED" : status === 404 ? "NOT_FOUND" : "BRIDGE_REFUSED", message } });
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : status === 404 ? "Not Found" : "Service Unavailable"}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
