/**
 * `/bridge`: the WebSocket endpoint live applications connect to, on the service's own port
 * (docs/bridges.md, "Who connects to whom"). bin/kiln.js loads it on the first HTTP upgrade and
 * hands it every upgrade. Requests are
 * checked before the upgrade: no browser (Origin), loopback Host and peer, the bridge token (in
 * team mode, a personal access token).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { isLoopbackHost } from "../config";
import type { Kiln } from "../runtime";
import { MAX_FRAME } from "./protocol";
import { BridgeSession } from "./session";
import { actorAllows, personalActor, type Caller } from "../teams/actor";
import { FORWARDED_HEADER, fromThisMachine, PEER_HEADER } from "../teams/client-ip";
import { forbidden } from "../teams/permissions";
import { streamOwner } from "../teams/streams";

export const BRIDGE_PATH = "/bridge";
/** Connections that have not said hello yet, at most (an app connects once; a few apps at a time). */
export const MAX_AWAITING_HELLO = 4;

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

/** An upgrade's check: why it is refused, or who connects (server/teams/actor.ts). */
export type UpgradeCheck = { refused: { status: number; message: string } } | { caller: Caller };

/**
 * Checks an upgrade request. Personal mode: the project's bridge token or KILN_TOKEN. Team mode
 * (docs/teams.md): a personal access token whose holder may write (the app's hand edits are
 * changes), or, from this machine only, the project's bridge token or the operator credential.
 */
export async function refuseUpgrade(req: IncomingMessage, kiln: Kiln): Promise<UpgradeCheck> {
  const refused = (status: number, message: string): UpgradeCheck => ({ refused: { status, message } });
  if (new URL(req.url ?? "/", "http://x").pathname !== BRIDGE_PATH) return refused(404, "Not found");
  if (req.headers.origin !== undefined) return refused(403, "Browsers may not connect to the bridge");
  const host = req.headers.host ?? "";
  const { config } = kiln;
  if (!isLoopbackHost(hostName(host)) && !config.allowedHosts.includes(host) && !config.allowedHosts.includes(hostName(host)))
    return refused(403, `Host "${host}" is not served`);
  if (isLoopbackHost(config.host) && !isLoopbackHost(req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? ""))
    return refused(403, "Only this machine may connect");
  const auth = req.headers.authorization ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
  if (!kiln.teams.enabled) {
    if (!matches(token, kiln.live.credentials.token) && !matches(token, config.token))
      return refused(401, "A valid 'Authorization: Bearer <bridge token>' header is required");
    return { caller: { source: "live", actor: personalActor("live", "live") } };
  }
  const headers = new Headers({ authorization: auth, [PEER_HEADER]: req.socket.remoteAddress ?? "" });
  if (req.headers["x-forwarded-for"]) headers.set(FORWARDED_HEADER, String(req.headers["x-forwarded-for"]));
  if (matches(token, kiln.live.credentials.token)) {
    if (!fromThisMachine(headers)) return refused(401, "The project's bridge token is accepted from this machine only; use a personal access token");
    return { caller: { source: "live", actor: kiln.teams.credentials.operatorActor("live", "live") } };
  }
  const resolved = await kiln.teams.credentials.resolve(headers, "live");
  if ("refusal" in resolved) return refused(401, resolved.refusal.message);
  if (!actorAllows(resolved.caller.actor, "write")) return refused(403, forbidden("Connecting a live application", "write", resolved.caller.actor).message);
  return { caller: { ...resolved.caller, source: "live" } };
}

/** The bridge endpoint: what to do with an HTTP upgrade, and closing every connection (shutdown). */
export function createBridgeEndpoint(): { handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void; close: () => void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  return {
    handleUpgrade(req, socket, head) {
      // A peer may reset the connection while it is refused or checked: that must not be uncaught.
      const onError = () => socket.destroy();
      socket.on("error", onError);
      void (async () => {
        let kiln: Kiln;
        try {
          kiln = await runningKiln();
        } catch {
          return reject(socket, 503, "Kiln is not running");
        }
        const check = await refuseUpgrade(req, kiln);
        if ("refused" in check) return reject(socket, check.refused.status, check.refused.message);
        if (BridgeSession.awaitingHello >= MAX_AWAITING_HELLO)
          return reject(socket, 503, `${MAX_AWAITING_HELLO} connections are already waiting to say hello; try again shortly`);
        socket.off("error", onError); // ws handles the socket's errors from here on
        wss.handleUpgrade(req, socket, head, (ws) => {
          // Team mode: revoking the token or removing its holder closes the connection.
          if (kiln.teams.enabled) {
            const unregister = kiln.teams.streams.add(streamOwner(check.caller.actor), (reason) => ws.close(4401, reason.slice(0, 120)));
            ws.once("close", unregister);
          }
          const session = new BridgeSession(ws);
          session.caller = check.caller;
          void kiln.live.accept(session);
        });
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
