/**
 * The live applications of a project: which app is connected, mirroring Kiln's changes to it, taking
 * its hand edits as operations, and reconciling both sides on connect (docs/bridges.md).
 *
 * Kiln stays the source of truth: a change reaches the app before it takes effect here, and the app
 * refusing it refuses the whole change. The workspace calls in through its mirror hooks, so the
 * scene core and the tools never learn that an app is live.
 */
import { personalActor, withCaller, type Actor, type Caller } from "../teams/actor";
import { KilnError } from "../errors";
import { meshRecord } from "../pipeline/mesh-records";
import { sameRecord } from "../scene/changes";
import { belongsTo } from "../scene/operations-sync";
import { meshDataOf } from "../scene/mesh-data";
import { LIMITS } from "../pipeline/formats/limits";
import { APPS, ids, type AppId, type Change, type MeshRecord, type SceneEntity, type SceneState } from "../scene/types";
import type { Workspace } from "../workspace/workspace";
import type { BridgeCredentials } from "./credentials";
import { encodeBlob, type Blob } from "./frames";
import { HEARTBEAT_MS, PROTOCOL_VERSION, SLOW_REPLY_TIMEOUT_MS, type AppSideRecord, type Edit, type Hello } from "./protocol";
import { BridgeSession, disconnected } from "./session";

export type Connection = "embedded" | "live" | "disconnected";

export interface LiveStatus {
  connection: Connection;
  live?: { app_version: string; file: string; instance: string; since: string; session: string };
  disconnected_since?: string;
}

const bytes = (a: Float32Array | Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export class LiveApps {
  private sessions = new Map<AppId, BridgeSession>();
  /** Apps whose connection dropped without a goodbye: their tools answer 503 until they are back. */
  private dropped = new Map<AppId, Date>();
  /** Apps whose connection is between its hello and becoming live. */
  private connecting = new Set<AppId>();

  constructor(private workspace: Workspace, readonly credentials: BridgeCredentials) {
    workspace.hooks.mirror = (changes, info) => this.mirror(changes, info.kind, info.tool, info.origin);
    workspace.hooks.mirrorState = (before, after) => this.mirrorState(before, after);
    workspace.hooks.reverted = (changes) => void this.mirror(changes, "revert", "revert")?.catch(() => undefined);
    workspace.hooks.isLive = (app) => this.sessions.has(app);
    workspace.hooks.diverged = (app) => {
      const s = this.sessions.get(app);
      if (s) void this.resync(s);
    };
  }

  status(app: AppId): LiveStatus {
    const s = this.sessions.get(app);
    if (s) {
      const h = s.hello;
      return { connection: "live", live: { app_version: h.app_version, file: h.file, instance: h.instance, since: s.since.toISOString(), session: s.id } };
    }
    const since = this.dropped.get(app);
    return since ? { connection: "disconnected", disconnected_since: since.toISOString() } : { connection: "embedded" };
  }

  /** The connected apps and who runs them (presence). */
  connected(): { app: AppId; instance: string; file: string; since: Date; actor: Actor }[] {
    return [...this.sessions.values()].map((s) => ({ app: s.app, instance: s.hello.instance, file: s.hello.file, since: s.since, actor: this.callerOf(s).actor }));
  }

  /** The caller of a live app's hand edits: whoever connected it, through the app. */
  private callerOf(session: BridgeSession): Caller {
    const base = session.caller?.actor ?? personalActor("live", session.id);
    return { source: "live", actor: { ...base, client: "live", clientName: `${session.app} ${session.hello.app_version}`, session: `live:${session.id}` } };
  }

  isLive(app: AppId): boolean {
    return this.sessions.has(app);
  }

  /**
   * Takes up where the last run left each app, from the log's last connection note: an app that was
   * live and never said goodbye (Kiln stopped or crashed under it) is disconnected, not embedded, so
   * its tools do not quietly act on Kiln's copy until it is back or handed back (`release`).
   */
  async restore(): Promise<void> {
    for (const app of APPS) {
      const last = await this.workspace.database.operation.findFirst({
        where: { kind: "bridge", app }, orderBy: { seq: "desc" }, select: { tool: true, params: true, createdAt: true },
      });
      if (!last || this.sessions.has(app)) continue;
      let goodbye = false;
      try {
        goodbye = (JSON.parse(last.params) as { goodbye?: unknown }).goodbye === true;
      } catch { /* an unreadable note: as without a goodbye */ }
      if (last.tool === "live_connect" || (last.tool === "live_disconnect" && !goodbye)) this.dropped.set(app, last.createdAt);
    }
  }

  /**
   * Hands a disconnected app's scene back to Kiln (the release_app tool): its tools act on Kiln's
   * embedded scene again, as after a goodbye. Refused while the app is live or connecting.
   */
  async release(app: AppId): Promise<LiveStatus> {
    if (this.sessions.has(app) || this.connecting.has(app))
      throw new KilnError("APP_LIVE", `The live ${app} is ${this.connecting.has(app) ? "connecting" : "connected"}; disconnect it in ${app} (or stop it) to hand its scene back.`, 409, { app });
    if (this.dropped.delete(app)) await this.workspace.note("bridge", "live_release", app, {});
    return this.status(app);
  }

  /** Sends a request to a live app (render, save, export); 503 when it is not connected. */
  async request(app: AppId, type: string, fields: Record<string, unknown>): Promise<{ result: unknown; blobs: Map<string, Blob> }> {
    const s = this.sessions.get(app);
    if (!s) throw disconnected(app);
    return s.request(type, fields, { timeoutMs: SLOW_REPLY_TIMEOUT_MS });
  }

  /** Takes a new connection through its hello, then serves it until it closes. */
  async accept(session: BridgeSession): Promise<void> {
    let hello: Hello;
    try {
      ({ hello } = await session.waitForHello());
    } catch (e) {
      return this.refuse(session, "INVALID_HELLO", (e as Error).message);
    }
    if (hello.protocol !== PROTOCOL_VERSION)
      return this.refuse(session, "PROTOCOL_MISMATCH", `Kiln speaks bridge protocol ${PROTOCOL_VERSION}, not ${hello.protocol}: install the add-on of this Kiln (kiln ${hello.app} does it from its checkout; docs/bridges.md).`);
    if (this.sessions.has(hello.app) || this.connecting.has(hello.app))
      return this.refuse(session, "APP_ALREADY_CONNECTED", `A live ${hello.app} is already connected to this project.`);
    // From here until it is live, the app's tools answer 503 APP_CONNECTING (see mirror).
    this.connecting.add(hello.app);
    let records: SceneEntity[];
    let meshes: Record<string, string>;
    try {
      const sync = await session.waitForSync();
      ({ records, meshes } = this.toRecords(hello.app, sync.records, sync.blobs));
    } catch (e) {
      this.connecting.delete(hello.app);
      return this.refuse(session, "INVALID_HELLO", (e as Error).message);
    }

    session.onClose = (bye) => this.closed(session, bye);
    session.onEdit = (edit, editBlobs) => this.takeEdit(session, edit, editBlobs);
    // A change the app applied after Kiln gave up on it: Kiln did not take it, so the app is set right.
    session.onLateApply = () => void this.resync(session);
    session.send({ type: "welcome", protocol: PROTOCOL_VERSION, project: this.credentials.project, session: session.id, heartbeat_ms: HEARTBEAT_MS, meshes });
    const noted = this.workspace.note("bridge", "live_connect", hello.app, {
      app_version: hello.app_version, instance: hello.instance, file: hello.file, session: session.id,
    }, this.callerOf(session).actor).catch(() => undefined);
    try {
      await this.reconcile(session, records);
      await noted;
    } catch (e) {
      console.error(`kiln: could not reconcile the live ${hello.app}: ${(e as Error).message}`);
      session.close(1011, "reconciliation failed");
    } finally {
      this.connecting.delete(hello.app);
    }
  }

  /** Closes every connection (service shutdown). */
  closeAll(): void {
    for (const s of this.sessions.values()) s.close(1001, "Kiln is stopping");
  }

  private refuse(session: BridgeSession, code: string, message: string): void {
    session.send({ type: "refused", code, message });
    session.close(1008, code);
  }

  private closed(session: BridgeSession, bye: boolean): void {
    if (this.sessions.get(session.app) !== session) return;
    this.sessions.delete(session.app);
    if (!bye) this.dropped.set(session.app, new Date());
    void this.workspace.note("bridge", "live_disconnect", session.app, { session: session.id, goodbye: bye }, this.callerOf(session).actor).catch(() => undefined);
  }

  /**
   * Brings both sides to one state right after the handshake (docs/bridges.md, "Reconciliation"):
   * a file Kiln has never seen is adopted, offline edits of a known file are taken, and otherwise
   * Kiln's state is pushed to the app.
   */
  private async reconcile(session: BridgeSession, records: SceneEntity[]): Promise<void> {
    const { hello } = session;
    const known = hello.stamp?.project === this.credentials.project;
    const adopt = !known && hello.file !== "";
    // The session becomes live in turn with every other change: what was planned before it is in
    // `records` or pushed below; what is planned after it is mirrored to it.
    const register = () => {
      if (!session.open) return;
      this.sessions.set(hello.app, session);
      this.dropped.delete(hello.app);
    };
    if (adopt || (known && hello.dirty)) {
      const tool = adopt ? "live_adopt" : "live_edit";
      await this.workspace.execute(
        { tool, app: hello.app, params: { records, replace: true } },
        { kind: "live", origin: session, actor: this.callerOf(session).actor, onTurn: register, loggedParams: { source: hello.app, instance: hello.instance, file: hello.file, records: records.length, replace: true } },
      );
      return;
    }
    await this.workspace.sendInTurn(hello.app, () => {
      register();
      return this.pushDiff(session, records);
    });
  }

  /** Sends the app whatever differs between `appRecords` (what it has) and Kiln's state. */
  private async pushDiff(session: BridgeSession, appRecords: SceneEntity[]): Promise<void> {
    const have = new Map(appRecords.map((r) => [r.id, r]));
    const changes = diffApp(session.app, have, this.workspace.state);
    if (changes.length) await this.push(session, changes, "Kiln: reconnect", this.workspace.seq);
  }

  /** The workspace's mirror hook: forwards each live app its share of the changes. */
  private mirror(changes: Change[], kind: string, label: string, origin?: unknown): Promise<void> | null {
    let work: Promise<void>[] | null = null;
    for (const app of APPS) {
      const mine = changes.filter((c) => belongsTo(c.id, app));
      if (mine.length === 0) continue;
      const session = this.sessions.get(app);
      if (session) {
        if (origin === session) continue;
        (work ??= []).push(this.push(session, mine, label, this.workspace.seq + 1, changes));
      } else if (this.connecting.has(app) && kind === "tool") {
        return Promise.reject(new KilnError("APP_CONNECTING", `The live ${app} is connecting (Kiln and ${app} are being brought to one state); try again once get_pipeline_status shows it live.`, 503, { app }));
      } else if (this.dropped.has(app) && kind === "tool") {
        // Restores and rollbacks go on without it: the app gets Kiln's state when it reconnects.
        return Promise.reject(disconnected(app));
      }
    }
    return work && Promise.all(work).then(() => undefined);
  }

  private mirrorState(before: SceneState, after: SceneState): Promise<void> | null {
    let work: Promise<void>[] | null = null;
    for (const [app, session] of this.sessions) {
      const have = new Map<string, SceneEntity>();
      for (const [id, r] of before) if (belongsTo(id, app)) have.set(id, r);
      const changes = diffApp(app, have, after);
      if (changes.length) (work ??= []).push(this.push(session, changes, "Kiln: switch branch", this.workspace.seq));
    }
    return work && Promise.all(work).then(() => undefined);
  }

  /** Sends an `apply`, preceded by the meshes it uses that the app does not have yet. */
  private async push(session: BridgeSession, changes: Change[], label: string, seq: number, context: Change[] = changes): Promise<void> {
    const blobs: Buffer[] = [];
    const sending: string[] = [];
    for (const c of changes) {
      const mesh = c.after?.type === "object" ? c.after.mesh : null;
      if (!mesh || session.meshes.has(mesh) || sending.includes(mesh)) continue;
      const record = (context.find((x) => x.id === mesh)?.after ?? this.workspace.state.get(mesh)) as MeshRecord | undefined;
      if (record?.type !== "mesh") continue;
      const data = meshDataOf(record);
      blobs.push(encodeBlob(mesh, "mesh", { positions: bytes(data.positions), normals: bytes(data.normals), indices: bytes(data.indices) }));
      sending.push(mesh);
    }
    await session.request("apply", { seq, label, changes }, { blobs });
    for (const m of sending) session.meshes.add(m);
  }

  /** A hand edit: one operation attributed to the app, or refused and the app set right again. */
  private async takeEdit(session: BridgeSession, edit: Edit, blobs: Map<string, Blob>): Promise<unknown> {
    try {
      const { records, meshes } = this.toRecords(session.app, edit.records, blobs);
      // As the person who connected the app: a lock someone else holds refuses the edit (423).
      const applied = await withCaller(this.callerOf(session), () => this.workspace.execute(
        { tool: "live_edit", app: session.app, params: { records, deleted: edit.deleted } },
        { kind: "live", origin: session, loggedParams: { source: session.app, instance: session.hello.instance, records: records.length, deleted: edit.deleted.length } },
      ));
      for (const id of Object.values(meshes)) session.meshes.add(id);
      return { seq: applied.seq, meshes };
    } catch (e) {
      // Kiln keeps its state; the app is brought back to it so both sides agree again.
      void this.resync(session);
      throw e;
    }
  }

  /** Asks the app for its whole scene and pushes what differs from Kiln's. */
  private async resync(session: BridgeSession): Promise<void> {
    try {
      const { result, blobs } = await session.request("dump", {});
      const { records } = this.toRecords(session.app, (result as { records: AppSideRecord[] }).records ?? [], blobs);
      if (!session.open) return;
      await this.workspace.sendInTurn(session.app, () => this.pushDiff(session, records));
    } catch (e) {
      console.error(`kiln: could not bring the live ${session.app} back to Kiln's state: ${(e as Error).message}`);
    }
  }

  /**
   * Records as Kiln keeps them, from what the app sent: ids computed from the fields, meshes sent as
   * blobs turned into content-addressed mesh records (added to the list).
   */
  private toRecords(app: AppId, sent: AppSideRecord[], blobs: Map<string, Blob>): { records: SceneEntity[]; meshes: Record<string, string> } {
    const records: SceneEntity[] = [];
    const meshes: Record<string, string> = {};
    const meshRecords = new Map<string, MeshRecord>();
    for (const r of sent) {
      if (r.app !== app) throw new KilnError("INVALID_EDIT", `A record of ${r.app} came from the live ${app}.`, 400);
      if (r.type === "object" && r.mesh?.startsWith("blob:")) {
        const key = r.mesh.slice(5);
        if (!meshes[key]) {
          const blob = blobs.get(key);
          if (blob?.kind !== "mesh") throw new KilnError("INVALID_EDIT", `"${r.name}" uses mesh blob "${key}", which was not sent.`, 400);
          const mesh = meshRecord(meshFromBlob(blob));
          meshes[key] = mesh.id;
          meshRecords.set(mesh.id, mesh);
        }
        records.push(withId({ ...r, mesh: meshes[key] }));
      } else {
        records.push(withId(r));
      }
    }
    return { records: [...records, ...meshRecords.values()], meshes };
  }
}

function withId(r: AppSideRecord): SceneEntity {
  switch (r.type) {
    case "app": return { ...r, id: ids.app(r.app) };
    case "scene": return { ...r, id: ids.scene(r.app, r.name) };
    case "object": return { ...r, id: ids.object(r.app, r.scene, r.name) } as SceneEntity;
    case "material": return { ...r, id: ids.material(r.app, r.name) };
  }
}

/** Typed arrays of a mesh blob, checked: whole values, indices in range, finite coordinates. */
function meshFromBlob(blob: Blob) {
  const part = (name: string, size: number) => {
    const b = blob.parts[name];
    if (!b || b.byteLength % size !== 0) throw new KilnError("INVALID_EDIT", `Mesh blob "${blob.key}" has no whole "${name}" array.`, 400);
    return new Uint8Array(b).buffer; // a copy, aligned for the typed array
  };
  const positions = new Float32Array(part("positions", 4));
  const normals = new Float32Array(part("normals", 4));
  const indices = new Uint32Array(part("indices", 4));
  const vertices = positions.length / 3;
  if (positions.length % 3 !== 0 || indices.length % 3 !== 0 || (normals.length !== 0 && normals.length !== positions.length))
    throw new KilnError("INVALID_EDIT", `Mesh blob "${blob.key}" does not hold whole vertices and triangles.`, 400);
  // The limits files have (server/pipeline/formats/limits.ts): what a live app sends must export
  // and transfer like anything imported.
  if (vertices > LIMITS.vertices || indices.length / 3 > LIMITS.triangles)
    throw new KilnError("INVALID_EDIT", `Mesh blob "${blob.key}" has more than ${LIMITS.vertices} vertices or ${LIMITS.triangles} triangles.`, 400);
  for (let k = 0; k < positions.length; k++)
    if (!(Math.abs(positions[k]) <= LIMITS.coordinate)) throw new KilnError("INVALID_EDIT", `Mesh blob "${blob.key}" has a coordinate that is not a finite number within ±${LIMITS.coordinate} m.`, 400);
  for (let k = 0; k < normals.length; k++)
    if (!Number.isFinite(normals[k])) throw new KilnError("INVALID_EDIT", `Mesh blob "${blob.key}" has a normal that is not finite.`, 400);
  for (const i of indices) if (i >= vertices) throw new KilnError("INVALID_EDIT", `Mesh blob "${blob.key}" has an index past its ${vertices} vertices.`, 400);
  return { positions, normals: normals.length ? normals : new Float32Array(positions.length), indices };
}

/** Changes that turn `have` (an app's records) into Kiln's records of that app in `state`. */
function diffApp(app: AppId, have: Map<string, SceneEntity>, state: SceneState): Change[] {
  const changes: Change[] = [];
  for (const [id, record] of state) {
    if (!belongsTo(id, app)) continue;
    const before = have.get(id) ?? null;
    if (!sameRecord(before, record)) changes.push({ id, before, after: record });
  }
  for (const [id, record] of have) if (!state.has(id) && belongsTo(id, app)) changes.push({ id, before: record, after: null });
  return changes;
}
