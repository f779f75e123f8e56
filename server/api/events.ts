/**
 * `GET /events`: Kiln's event bus (server/events) as server-sent events. Same checks as /tools
 * (Host, Origin, bearer token or the browser's session cookie). One `data:` line of JSON per
 * event with its `id:`, so EventSource resumes after a reconnect with `Last-Event-ID`; a comment
 * every HEARTBEAT_MS keeps proxies from closing an idle stream and finds dead clients.
 */
import { kilnEvents } from "../events/bus";
import { EVENT_KINDS, type EventKind, type KilnEvent } from "../events/types";
import { admit } from "./admit";
import { fail } from "./envelope";
import { streamOwner } from "../teams/streams";
import { SESSION_PATTERN } from "./caller";

/** At most this many streams at once: each holds a connection and a subscription. */
export const MAX_STREAMS = 64;
const HEARTBEAT_MS = 15_000;
/** A client that lets this much pile up unread is cut off; it resumes with Last-Event-ID. */
const MAX_BUFFERED = 4 << 20;

let open = 0;

/** The kinds asked for with `?kinds=a,b`, all when absent; an unknown kind is an error. */
function parseKinds(url: URL): Set<EventKind> | { bad: string } {
  const raw = url.searchParams.getAll("kinds").flatMap((k) => k.split(",")).map((k) => k.trim()).filter(Boolean);
  if (raw.length === 0) return new Set(EVENT_KINDS);
  const bad = raw.find((k) => !(EVENT_KINDS as readonly string[]).includes(k));
  return bad ? { bad } : new Set(raw as EventKind[]);
}

/** The id to resume after: the Last-Event-ID header (EventSource sends it) or `?last_event_id=`. */
function parseLastId(req: Request, url: URL): number | null {
  const raw = req.headers.get("last-event-id") ?? url.searchParams.get("last_event_id");
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

const encoder = new TextEncoder();
// Every open stream sends the same bytes for an event: serialised and encoded once, not once per
// stream (with 50 Studio tabs open, per-stream JSON.stringify was most of a change's fan-out cost).
const frames = new WeakMap<KilnEvent, Uint8Array>();
function frame(e: KilnEvent): Uint8Array {
  let bytes = frames.get(e);
  if (!bytes) frames.set(e, (bytes = encoder.encode(`id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`)));
  return bytes;
}

/** Handles one `GET /events`. */
export async function handleEvents(req: Request): Promise<Response> {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln, caller, sessionId } = admitted;
  const url = new URL(req.url);
  const kinds = parseKinds(url);
  if ("bad" in kinds)
    return fail(400, {
      code: "INVALID_PARAMS", message: `Unknown event kind "${kinds.bad}"; kinds are ${EVENT_KINDS.join(", ")}.`,
      details: { fields: [{ path: "kinds", message: `one of ${EVENT_KINDS.join(", ")}` }] },
    });
  const lastId = parseLastId(req, url);
  if (lastId === -1)
    return fail(400, { code: "INVALID_PARAMS", message: "Last-Event-ID must be a non-negative integer.", details: { fields: [{ path: "last_event_id", message: "a non-negative integer" }] } });
  if (open >= MAX_STREAMS)
    return fail(503, { code: "TOO_MANY_STREAMS", message: `${MAX_STREAMS} event streams are open already; close one or retry later.` }, { "retry-after": "5" });

  // The Studio tab names its session (EventSource cannot send headers): the stream is its presence,
  // and when the stream goes for good the tab has left and its locks go (server/teams/presence.ts).
  const tab = url.searchParams.get("session");
  const actor = tab && SESSION_PATTERN.test(tab) ? { ...caller.actor, session: tab } : caller.actor;

  open++;
  const bus = kilnEvents();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const send = (chunk: string | Uint8Array) => {
        if (closed) return;
        if ((controller.desiredSize ?? 0) <= 0) return cleanup();
        controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      };
      const unsubscribe = bus.subscribe((e) => kinds.has(e.kind) && send(frame(e)));
      const heartbeat = setInterval(() => send(": heartbeat\n\n"), HEARTBEAT_MS);
      // Team mode: revoking the token or ending the session that opened this stream closes it.
      const unregister = kiln.teams.enabled ? kiln.teams.streams.add(streamOwner(caller.actor, sessionId), () => cleanup()) : () => {};
      const gone = kiln.teams.presence.streamOpened(actor);
      cleanup = () => {
        if (closed) return;
        closed = true;
        open--;
        unregister();
        gone();
        unsubscribe();
        clearInterval(heartbeat);
        req.signal.removeEventListener("abort", cleanup);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      req.signal.addEventListener("abort", cleanup);
      send("retry: 1000\n: connected\n\n");
      if (lastId !== null) {
        const missed = bus.since(lastId);
        // Some events are gone: tell the client to reload what it shows instead of missing them.
        if (missed === null) send(`data: ${JSON.stringify({ kind: "reset", at: new Date().toISOString() })}\n\n`);
        else for (const e of missed) if (kinds.has(e.kind)) send(frame(e));
      }
    },
    cancel() {
      cleanup();
    },
  }, { highWaterMark: MAX_BUFFERED, size: (chunk) => chunk.byteLength });

  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: Next's compression would otherwise buffer the stream.
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
