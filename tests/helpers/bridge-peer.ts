/**
 * A minimal application on the app side of the bridge protocol (docs/bridges.md), for protocol tests
 * of Kiln's endpoint: it keeps its scene as a map of records, applies Kiln's `apply` requests to it
 * (or refuses them when told to), answers `dump`, and sends edits. The real Blender add-on is tested
 * against the same endpoint in tests/interop.
 */
import WebSocket from "ws";

export type Rec = Record<string, any> & { id: string; type: string };

export interface PeerOptions {
  url: string;
  token: string;
  app?: string;
  file?: string;
  stamp?: { project: string; seq: number } | null;
  dirty?: boolean;
  records?: Rec[];
  headers?: Record<string, string>;
  protocol?: number;
}

export class BridgePeer {
  readonly scene = new Map<string, Rec>();
  welcome: any = null;
  refused: any = null;
  applies: any[] = [];
  /** When set, the next applies are refused with this message. */
  refuse: string | null = null;
  /** Milliseconds to wait before answering an apply. */
  delay = 0;
  /** Every request Kiln sent, in order (pings included). */
  requests: any[] = [];
  /** When false, Kiln's pings go unanswered (an app whose main thread is stuck). */
  answerPings = true;
  private ws!: WebSocket;
  private counter = 0;
  private waiting = new Map<string, (reply: any) => void>();
  closed: Promise<{ code: number; reason: string }>;

  private constructor(private opts: PeerOptions) {
    for (const r of opts.records ?? []) this.scene.set(r.id, r);
    this.closed = new Promise(() => undefined);
  }

  /** Connects and says hello; resolves once welcomed or refused. */
  static async connect(opts: PeerOptions): Promise<BridgePeer> {
    const peer = new BridgePeer(opts);
    await peer.open();
    return peer;
  }

  private open(): Promise<void> {
    const { opts } = this;
    this.ws = new WebSocket(opts.url, { headers: { authorization: `Bearer ${opts.token}`, ...opts.headers } });
    this.closed = new Promise((resolve) => this.ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
    return new Promise((resolve, reject) => {
      this.ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      this.ws.on("error", reject);
      this.ws.on("open", () => {
        const protocol = opts.protocol ?? 2;
        const records = [...this.scene.values()];
        const hello = {
          type: "hello", protocol, app: opts.app ?? "blender", app_version: "peer 1.0", instance: "peer",
          file: opts.file ?? "", stamp: opts.stamp ?? null, dirty: opts.dirty ?? false,
        };
        // Protocol 1 (an older add-on) sent its scene inside the hello; 2 streams it after it.
        if (protocol === 1) return this.send({ ...hello, records });
        this.send(hello);
        for (let i = 0; i < records.length; i += 10_000) this.send({ type: "records", records: records.slice(i, i + 10_000) });
        this.send({ type: "sync" });
      });
      this.ws.on("message", (data, isBinary) => {
        if (isBinary) return;
        const m = JSON.parse(data.toString());
        if (m.type === "welcome") { this.welcome = m; resolve(); }
        else if (m.type === "refused") { this.refused = m; resolve(); }
        else if (m.type === "reply") this.waiting.get(m.id)?.(m);
        else if (m.id) void this.answer(m);
      });
    });
  }

  private async answer(m: any): Promise<void> {
    this.requests.push(m);
    if (m.type === "ping") {
      if (this.answerPings) this.send({ type: "reply", id: m.id, ok: true, result: {} });
      return;
    }
    if (m.type === "apply") {
      this.applies.push(m);
      if (this.delay) await new Promise((r) => setTimeout(r, this.delay));
      if (this.refuse) return this.send({ type: "reply", id: m.id, ok: false, error: { code: "APP_REFUSED", message: this.refuse } });
      for (const c of m.changes) {
        if (c.after) this.scene.set(c.id, c.after);
        else this.scene.delete(c.id);
      }
      return this.send({ type: "reply", id: m.id, ok: true, result: {} });
    }
    if (m.type === "dump") return this.send({ type: "reply", id: m.id, ok: true, result: { records: [...this.scene.values()] } });
    this.send({ type: "reply", id: m.id, ok: false, error: { code: "UNKNOWN_REQUEST", message: m.type } });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Sends a raw frame (text or binary), as a hostile or buggy app might. */
  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  /** Stops reading from the socket: no frame, not even a WebSocket pong, goes back to Kiln. */
  freeze(): void {
    (this.ws as unknown as { _socket: import("node:net").Socket })._socket.pause();
  }

  /** Sends an edit (whole records, deleted ids) and resolves with Kiln's reply. */
  edit(records: Rec[], deleted: string[] = []): Promise<any> {
    const id = `p${++this.counter}`;
    for (const r of records) this.scene.set(r.id, r);
    for (const d of deleted) this.scene.delete(d);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ type: "edit", id, records, deleted });
    });
  }

  bye(): void {
    this.send({ type: "bye" });
  }

  /** Drops the connection without a goodbye, as a crash would. */
  kill(): void {
    this.ws.terminate();
  }

  /** The peer's records of one type, by name. */
  named(type: string): Map<string, Rec> {
    return new Map([...this.scene.values()].filter((r) => r.type === type).map((r) => [r.name ?? r.id, r]));
  }
}
