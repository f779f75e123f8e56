/**
 * One connected application: requests with ids and replies, blobs, heartbeats (docs/bridges.md).
 * Knows the wire, not what the messages mean; LiveApps (./live-apps.ts) gives them meaning.
 */
import type { Caller } from "../teams/actor";
import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import { KilnError } from "../errors";
import type { AppId } from "../scene/types";
import { decodeBlob, type Blob } from "./frames";
import {
  DEAD_AFTER_MS, HEARTBEAT_MS, MAX_FRAME, MAX_HELLO_FRAME, MAX_SYNC_RECORDS, MAX_TEXT_FRAME, REPLY_TIMEOUT_MS, appMessage, describeIssues,
  helloMessage, recordsMessage, syncMessage, type AppSideRecord, type Edit, type Hello,
} from "./protocol";

/** Blobs a peer may have announced but not yet used, in bytes: bounds what a peer can park here. */
const MAX_PARKED_BLOB_BYTES = 512 * 1024 * 1024;
/** Time an app has to say hello after connecting. */
const HELLO_TIMEOUT_MS = 10_000;

export const disconnected = (app: string) =>
  new KilnError("APP_DISCONNECTED", `The live ${app} is not connected; start it again (kiln ${app}) and it reconnects by itself, or hand its scene back to Kiln with release_app.`, 503, { app });

interface Waiting { resolve: (r: { result: unknown; blobs: Map<string, Blob> }) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout }

export class BridgeSession {
  /** Connections of this process that have not said hello (nor closed) yet. */
  static awaitingHello = 0;
  readonly id = randomUUID();
  readonly since = new Date();
  hello!: Hello;
  /** Who connected (server/bridges/endpoint.ts): the app's hand edits are theirs (locks, presence). */
  caller?: Caller;
  /** Meshes the app has been sent on this connection (by id). */
  readonly meshes = new Set<string>();
  /** Handles the app's edits, one at a time, in the order sent. */
  onEdit: (edit: Edit, blobs: Map<string, Blob>) => Promise<unknown> = async () => {
    throw new KilnError("NOT_READY", "The session is not ready for edits.", 409);
  };
  onClose: (saidBye: boolean) => void = () => undefined;
  /** An `apply` the app answered with success after Kiln had given up on it (its deadline passed). */
  onLateApply: () => void = () => undefined;

  private waiting = new Map<string, Waiting>();
  /** Ids of `apply` requests that timed out, whose late success must be undone (bounded). */
  private expired = new Set<string>();
  private blobs = new Map<string, Blob>();
  private parkedBytes = 0;
  private lastSeen = Date.now();
  private counter = 0;
  private edits: Promise<unknown> = Promise.resolve();
  private heartbeat?: NodeJS.Timeout;
  private saidBye = false;
  private helloWaiter?: { resolve: (h: { hello: Hello }) => void; reject: (e: Error) => void };
  /** The first sync (docs/bridges.md, "Handshake"): records gathered until `sync`, then its outcome. */
  private syncing: AppSideRecord[] | null = [];
  private syncOutcome?: { records: AppSideRecord[]; blobs: Map<string, Blob> } | Error;
  private syncWaiter?: { resolve: (s: { records: AppSideRecord[]; blobs: Map<string, Blob> }) => void; reject: (e: Error) => void };

  private counted = true;

  constructor(private ws: WebSocket) {
    BridgeSession.awaitingHello++;
    // Until the hello, frames are capped at the socket (ws would otherwise buffer up to MAX_FRAME
    // before Kiln sees a byte). ws has no public per-connection limit: its receiver's is set.
    this.maxPayload(MAX_HELLO_FRAME);
    ws.on("message", (data, isBinary) => this.receive(data as Buffer, isBinary));
    ws.on("pong", () => (this.lastSeen = Date.now()));
    ws.on("close", () => this.closed());
    ws.on("error", () => ws.terminate());
    this.heartbeat = setInterval(() => {
      // While a request is pending the app may be busy with it (a long apply, a render): its own
      // deadline decides. Otherwise silence means the app is gone.
      if (this.waiting.size === 0 && Date.now() - this.lastSeen > DEAD_AFTER_MS) return ws.terminate();
      ws.ping();
      // Godot 3 does not show WebSocket pings to its script: a request it answers keeps both sides
      // aware of each other (its reply, or UNKNOWN_REQUEST from an older add-on, is a sign of life).
      if (this.hello && this.open) this.ws.send(JSON.stringify({ type: "ping", id: `k${++this.counter}`, deadline: Date.now() + DEAD_AFTER_MS }));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get app(): AppId {
    return this.hello.app;
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  private maxPayload(bytes: number): void {
    const receiver = (this.ws as unknown as { _receiver?: { _maxPayload?: number } })._receiver;
    if (receiver && typeof receiver._maxPayload === "number") receiver._maxPayload = bytes;
  }

  /**
   * The app's scene after its hello: the records of its `records` frames and the blobs sent
   * during the sync, once `sync` came; rejects on a malformed frame or when the connection closes.
   */
  waitForSync(): Promise<{ records: AppSideRecord[]; blobs: Map<string, Blob> }> {
    return new Promise((resolve, reject) => {
      const outcome = this.syncOutcome;
      if (outcome instanceof Error) return reject(outcome);
      if (outcome) return resolve(outcome);
      this.syncWaiter = { resolve, reject };
    });
  }

  private endSync(outcome: { records: AppSideRecord[]; blobs: Map<string, Blob> } | Error): void {
    if (this.syncOutcome) return;
    this.syncOutcome = outcome;
    this.syncing = null;
    if (outcome instanceof Error) this.syncWaiter?.reject(outcome);
    else this.syncWaiter?.resolve(outcome);
  }

  /** The app's hello; rejects when it does not come or is invalid. */
  waitForHello(): Promise<{ hello: Hello }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no hello within 10 s")), HELLO_TIMEOUT_MS);
      this.helloWaiter = {
        resolve: (h) => { clearTimeout(timer); resolve(h); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      };
    });
  }

  /** Sends a message that is not a request (welcome, refused, replies). */
  send(message: Record<string, unknown>): void {
    if (this.open) this.ws.send(JSON.stringify(message));
  }

  /** Sends a request (after its blobs) and resolves with the reply's result and blobs. */
  request(type: string, fields: Record<string, unknown>, opts: { blobs?: Buffer[]; timeoutMs?: number } = {}): Promise<{ result: unknown; blobs: Map<string, Blob> }> {
    if (!this.open) return Promise.reject(disconnected(this.app));
    const id = `k${++this.counter}`;
    return new Promise((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? REPLY_TIMEOUT_MS;
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        if (type === "apply") {
          this.expired.add(id);
          if (this.expired.size > 1000) this.expired.delete(this.expired.values().next().value!);
        }
        reject(new KilnError("APP_TIMEOUT", `The live ${this.app} did not answer "${type}" within ${timeoutMs / 1000} s.`, 503, { app: this.app }));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      for (const b of opts.blobs ?? []) this.ws.send(b);
      // The app drops a request whose deadline (ms since 1970) has passed before it starts it.
      this.ws.send(JSON.stringify({ ...fields, type, id, deadline: Date.now() + timeoutMs }));
    });
  }

  /** Closes the connection (a refusal, a shutdown). */
  close(code = 1000, reason = ""): void {
    this.ws.close(code, reason.slice(0, 120));
  }

  private receive(data: Buffer, isBinary: boolean): void {
    this.lastSeen = Date.now();
    try {
      if (isBinary) return this.park(decodeBlob(data));
      if (data.length > MAX_TEXT_FRAME) throw new Error(`a text frame of ${data.length} bytes is over the ${MAX_TEXT_FRAME}-byte limit`);
      checkDepth(data);
      this.dispatch(JSON.parse(data.toString("utf8")));
    } catch (e) {
      // A peer that does not speak the protocol is not answered further.
      this.send({ type: "error", code: "PROTOCOL_ERROR", message: (e as Error).message });
      this.close(1008, "protocol error");
    }
  }

  private park(blob: Blob): void {
    const bytes = Object.values(blob.parts).reduce((n, p) => n + p.byteLength, 0);
    this.parkedBytes += bytes;
    if (this.parkedBytes > MAX_PARKED_BLOB_BYTES) throw new Error("too many blob bytes before a message uses them");
    this.blobs.set(blob.key, blob);
  }

  /** Blobs sent before the current message belong to it. */
  private takeBlobs(): Map<string, Blob> {
    const blobs = this.blobs;
    this.blobs = new Map();
    this.parkedBytes = 0;
    return blobs;
  }

  private dispatch(raw: unknown): void {
    if (this.helloWaiter && !this.hello) {
      const parsed = helloMessage.safeParse(raw);
      if (!parsed.success) {
        this.helloWaiter.reject(new Error(`invalid hello: ${describeIssues(parsed.error)}`));
        return;
      }
      this.hello = parsed.data;
      this.uncount();
      this.maxPayload(MAX_FRAME);
      this.takeBlobs();
      this.helloWaiter.resolve({ hello: parsed.data });
      return;
    }
    // A failed first sync is being refused (LiveApps): what the app sends meanwhile is dropped.
    if (this.syncOutcome instanceof Error) return;
    if (this.syncing) {
      // The first sync: blobs stay parked (counted) until `sync`, so records may use any of them.
      const type = (raw as { type?: unknown })?.type;
      if (type === "sync") {
        if (!syncMessage.safeParse(raw).success) throw new Error("invalid sync");
        return this.endSync({ records: this.syncing, blobs: this.takeBlobs() });
      }
      const parsed = recordsMessage.safeParse(raw);
      if (!parsed.success) {
        this.endSync(new Error(type === "records" ? `invalid records: ${describeIssues(parsed.error)}` : `expected "records" or "sync" after the hello, not ${JSON.stringify(type)}`));
        return;
      }
      if (this.syncing.length + parsed.data.records.length > MAX_SYNC_RECORDS) {
        this.endSync(new Error(`a first sync holds at most ${MAX_SYNC_RECORDS} records`));
        return;
      }
      for (const r of parsed.data.records) this.syncing.push(r);
      return;
    }
    const parsed = appMessage.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown })?.id;
      if (typeof id === "string") return this.send({ type: "reply", id, ok: false, error: { code: "INVALID_MESSAGE", message: describeIssues(parsed.error) } });
      throw new Error(`invalid message: ${describeIssues(parsed.error)}`);
    }
    const message = parsed.data;
    const blobs = this.takeBlobs();
    if (message.type === "reply") {
      const waiting = this.waiting.get(message.id);
      if (!waiting) {
        // A reply after its timeout: an apply the app carried out anyway is undone by a resync.
        if (this.expired.delete(message.id) && message.ok) this.onLateApply();
        return;
      }
      this.waiting.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.ok) waiting.resolve({ result: message.result ?? {}, blobs });
      else {
        const { code = "APP_REFUSED", message: text = "no reason given" } = message.error ?? {};
        waiting.reject(new KilnError(code === "APP_REFUSED" ? code : "APP_REFUSED", `The live ${this.app} refused: ${text}`, 409, { app: this.app, app_code: code }));
      }
    } else if (message.type === "edit") {
      this.edits = this.edits.then(() => this.onEdit(message, blobs)).then(
        (result) => this.send({ type: "reply", id: message.id, ok: true, result }),
        (e) => this.send({ type: "reply", id: message.id, ok: false, error: { code: (e as KilnError).code ?? "INTERNAL", message: (e as Error).message } }),
      );
    } else if (message.type === "bye") {
      this.saidBye = true;
      this.close(1000, "bye");
    }
  }

  private uncount(): void {
    if (this.counted) BridgeSession.awaitingHello--;
    this.counted = false;
  }

  private closed(): void {
    this.uncount();
    clearInterval(this.heartbeat);
    this.helloWaiter?.reject(new Error("closed before hello"));
    this.endSync(new Error("closed before the first sync ended"));
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(this.hello ? disconnected(this.app) : new Error("closed"));
    }
    this.waiting.clear();
    if (this.hello) this.onClose(this.saidBye);
  }
}

/** Deepest nesting a text frame may have: records are a handful of levels deep. */
export const MAX_DEPTH = 64;

/**
 * Refuses a frame nested deeper than MAX_DEPTH before JSON.parse sees it: one pass over the bytes,
 * skipping strings, so a reply holding a million-deep array costs a scan, not a parse and a
 * validation that stall everyone (written here since JSON.parse has no depth limit).
 */
export function checkDepth(data: Uint8Array): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) throw new Error(`a text frame is nested deeper than ${MAX_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}
