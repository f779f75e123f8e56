/**
 * The bridge endpoint against the protocol of docs/bridges.md, with a minimal app peer
 * (tests/helpers/bridge-peer.ts): who may connect, the handshake, reconciliation, mirroring of
 * tools, restores and rollbacks, hand edits, refusals and disconnections. Real Blender: tests/interop.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgePeer, type Rec } from "../helpers/bridge-peer";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
let token: string;
let project: string;
let url: string;
const peers: BridgePeer[] = [];

beforeAll(async () => {
  kiln = await startServer();
  const creds = JSON.parse(readFileSync(path.join(kiln.home, "bridge.json"), "utf8"));
  ({ token, project } = creds);
  url = `${kiln.url.replace("http", "ws")}/bridge`;
});
afterAll(async () => {
  for (const p of peers) p.kill();
  await kiln?.stop();
});

const connect = async (opts: Partial<Parameters<typeof BridgePeer.connect>[0]> = {}) => {
  const peer = await BridgePeer.connect({ url, token, ...opts });
  peers.push(peer);
  return peer;
};
const until = async (what: () => boolean | Promise<boolean>, ms = 3000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};
/** What an upgrade request is answered with. */
const upgrade = (headers: Record<string, string>, at = url) => new Promise<number>((resolve) => {
  const ws = new WebSocket(at, { headers });
  ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
  ws.on("open", () => { ws.terminate(); resolve(101); });
  ws.on("error", () => resolve(-1));
});
/** A whole object record of Blender's, as an app reports it. */
const obj = (scene: string, name: string, extra: Partial<Rec> = {}): Rec => ({
  type: "object", id: `object/blender/${scene}/${name}`, app: "blender", scene, name, kind: "empty", primitive: null, mesh: null,
  parent: null, material: null, light: null, position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 },
  keyframes: [], modifiers: [], ...extra,
});
const objectsOf = async (app = "blender") => new Map<string, any>((await kiln.ok("get_scene", { app })).objects.map((o: any) => [o.name, o]));
const status = async () => (await kiln.ok("get_pipeline_status", {})).apps.find((a: any) => a.app === "blender");
const close = async (peer: BridgePeer, how: "bye" | "kill") => {
  if (how === "bye") peer.bye();
  else peer.kill();
  await peer.closed;
  await until(async () => (await status()).connection !== "live");
};

describe("bridge endpoint", () => {
  it("keeps the bridge token in .kiln/bridge.json, readable by its owner only", () => {
    expect(statSync(path.join(kiln.home, "bridge.json")).mode & 0o777).toBe(0o600);
    expect(token.length).toBeGreaterThanOrEqual(32);
  });

  it("refuses browsers, missing or wrong tokens and other paths before upgrading", async () => {
    expect(await upgrade({ authorization: `Bearer ${token}`, origin: "http://127.0.0.1:5555" })).toBe(403);
    expect(await upgrade({ authorization: `Bearer ${token}`, origin: kiln.url })).toBe(403);
    expect(await upgrade({})).toBe(401);
    expect(await upgrade({ authorization: `Bearer ${token.slice(1)}x` })).toBe(401);
    expect(await upgrade({ authorization: `Bearer ${token}` }, `${url}x`)).toBe(404);
    expect(await upgrade({ authorization: `Bearer ${token}`, host: "evil.example:80" })).toBe(403);
    expect(await upgrade({ authorization: `Bearer ${token}` })).toBe(101);
  });

  it("refuses another protocol version and a second instance of a live app", async () => {
    // An add-on of protocol 1 (its scene inside the hello) is told to update.
    const old = await connect({ protocol: 1 });
    expect(old.refused).toMatchObject({ code: "PROTOCOL_MISMATCH" });
    expect(old.refused.message).toContain("install the add-on of this Kiln");
    const first = await connect();
    expect(first.welcome).toMatchObject({ protocol: 2, project });
    const second = await connect();
    expect(second.refused).toMatchObject({ code: "APP_ALREADY_CONNECTED" });
    await close(first, "bye");
  });
});

describe("a live app", () => {
  let peer: BridgePeer;

  it("an unsaved new file gets Kiln's state on connect", async () => {
    await kiln.ok("create_gameobject", { app: "blender", name: "Before", type: "Cube", position: { x: 1, y: 2, z: 3 } });
    // Blender's factory scene, which Kiln has never seen and which is not a saved file.
    peer = await connect({ records: [
      { type: "app", id: "app/blender", app: "blender", activeScene: "Scene" },
      { type: "scene", id: "scene/blender/Scene", app: "blender", name: "Scene", camera: { position: { x: 7, y: -7, z: 5 }, rotation: { x: 63, y: 0, z: 46 }, fov: 39.6 } },
      obj("Scene", "Cube", { kind: "mesh", primitive: "Cube" }),
    ] });
    await until(() => peer.named("object").has("Before") && !peer.named("object").has("Cube"));
    expect(peer.named("object").get("Before")).toMatchObject({ primitive: "Cube", position: { x: 1, y: 2, z: 3 } });
    expect(peer.named("scene").has("Main")).toBe(true);
    const s = await status();
    expect(s).toMatchObject({ connection: "live", live: { app_version: "peer 1.0", file: "", instance: "peer" } });
  });

  it("tools change the app before they take effect in Kiln", async () => {
    const n = peer.applies.length;
    await kiln.ok("create_gameobject", { app: "blender", name: "Box", type: "Cube" });
    await kiln.ok("set_transform", { app: "blender", target: "Box", position: { z: 4 } });
    expect(peer.applies.length).toBe(n + 2);
    expect(peer.applies[n]).toMatchObject({ label: "create_gameobject", changes: [{ id: "object/blender/Main/Box", before: null }] });
    expect(peer.named("object").get("Box")!.position).toEqual({ x: 0, y: 0, z: 4 });
    // Other apps are not the live app's business.
    await kiln.ok("create_gameobject", { app: "unity", name: "Elsewhere", type: "Cube" });
    expect(peer.applies.length).toBe(n + 2);
  });

  it("a change the app refuses changes nothing anywhere", async () => {
    const before = await objectsOf();
    peer.refuse = "Blender says no";
    const r = await kiln.call("create_gameobject", { app: "blender", name: "Refused", type: "Sphere" });
    peer.refuse = null;
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: "APP_REFUSED" });
    expect(r.body.error.message).toContain("Blender says no");
    expect(await objectsOf()).toEqual(before);
    expect(peer.named("object").has("Refused")).toBe(false);
  });

  it("hand edits become operations attributed to the app", async () => {
    const box = peer.named("object").get("Box")!;
    const reply = await peer.edit([{ ...box, position: { x: 7, y: 0, z: 4 } }]);
    expect(reply).toMatchObject({ ok: true, result: { seq: expect.any(Number) } });
    expect((await objectsOf()).get("Box").position).toEqual({ x: 7, y: 0, z: 4 });
    const history = await kiln.ok("get_history", { limit: 1 });
    expect(history.entries[0]).toMatchObject({ kind: "live", tool: "live_edit", app: "blender" });
    // The person who connected the app, "in Blender", in the connection's own session.
    expect(history.entries[0].actor).toMatchObject({ client: "live", client_name: expect.stringMatching(/^blender /), session: expect.any(String) });
    expect(history.entries[0].actor.by).toMatch(/ in Blender$/);
    // Kiln does not send the app its own edit back.
    const n = peer.applies.length;
    await peer.edit([{ ...box, name: "Crate", id: "object/blender/Main/Crate", position: { x: 7, y: 0, z: 4 } }], [box.id]);
    expect(peer.applies.length).toBe(n);
    const objects = await objectsOf();
    expect(objects.has("Box")).toBe(false);
    expect(objects.get("Crate").position).toEqual({ x: 7, y: 0, z: 4 });
  });

  it("an edit Kiln cannot take is refused and the app is set right again", async () => {
    const before = await objectsOf();
    const crate = peer.named("object").get("Crate")!;
    const reply = await peer.edit([{ ...crate, parent: "Nobody", position: { x: -1, y: -1, z: -1 } }]);
    expect(reply).toMatchObject({ ok: false, error: { code: "INVALID_EDIT" } });
    expect(await objectsOf()).toEqual(before);
    await until(() => peer.named("object").get("Crate")!.parent === null);
    expect(peer.named("object").get("Crate")!.position).toEqual({ x: 7, y: 0, z: 4 });
  });

  it("rollback_transaction restores the app exactly, hand edits included", async () => {
    const atBegin = JSON.stringify([...peer.scene.entries()].sort());
    await kiln.ok("begin_transaction", { name: "Live work" });
    await kiln.ok("create_gameobject", { app: "blender", name: "Temp", type: "Empty" });
    await kiln.ok("set_transform", { app: "blender", target: "Crate", rotation: { z: 45 } });
    const temp = peer.named("object").get("Temp")!;
    await peer.edit([{ ...temp, position: { x: 9, y: 9, z: 9 } }]);
    expect((await kiln.ok("get_transaction_status", {})).transaction.operations).toBe(3);
    await kiln.ok("rollback_transaction", {});
    expect(JSON.stringify([...peer.scene.entries()].sort())).toBe(atBegin);
    expect((await objectsOf()).has("Temp")).toBe(false);
  });

  it("restore_version and switch_branch change the app to match", async () => {
    const v = await kiln.ok("save_version", { name: "With crate" });
    await kiln.ok("delete_object", { app: "blender", target: "Crate" });
    expect(peer.named("object").has("Crate")).toBe(false);
    await kiln.ok("restore_version", { version_id: v.version_id });
    expect(peer.named("object").get("Crate")).toMatchObject({ position: { x: 7, y: 0, z: 4 } });
    await kiln.ok("create_branch", { name: "empty-ish", from_version: v.version_id });
    await kiln.ok("switch_branch", { name: "empty-ish" });
    await kiln.ok("create_gameobject", { app: "blender", name: "OnBranch", type: "Cube" });
    await kiln.ok("switch_branch", { name: "main" });
    expect(peer.named("object").has("OnBranch")).toBe(false);
    await kiln.ok("switch_branch", { name: "empty-ish" });
    expect(peer.named("object").has("OnBranch")).toBe(true);
    await kiln.ok("switch_branch", { name: "main" });
  });

  it("a dropped app makes its tools answer 503 until it is back; then it gets Kiln's state", async () => {
    const seq = peer.applies.at(-1)!.seq;
    await close(peer, "kill");
    expect(await status()).toMatchObject({ connection: "disconnected" });
    const r = await kiln.call("create_gameobject", { app: "blender", name: "WhileAway", type: "Cube" });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("APP_DISCONNECTED");
    expect((await objectsOf()).has("WhileAway")).toBe(false);
    // Reads, other apps, and restores go on.
    await kiln.ok("get_scene", { app: "blender" });
    await kiln.ok("create_gameobject", { app: "unity", name: "StillFine", type: "Cube" });
    const scene = [...peer.scene.values()];
    const back = await connect({ records: scene, stamp: { project, seq }, file: "/tmp/work.blend" });
    expect(back.welcome).toBeTruthy();
    await kiln.ok("create_gameobject", { app: "blender", name: "AfterReturn", type: "Cube" });
    expect(back.named("object").has("AfterReturn")).toBe(true);
    const history = (await kiln.ok("get_history", { limit: 10 })).entries.map((e: any) => e.tool);
    expect(history).toContain("live_connect");
    expect(history).toContain("live_disconnect");
    peer = back;
  });

  it("offline edits of a known file are taken on reconnect", async () => {
    await close(peer, "bye");
    expect(await status()).toMatchObject({ connection: "embedded" });
    // After a goodbye the app is embedded again: its tools work without it.
    await kiln.ok("create_gameobject", { app: "blender", name: "Embedded", type: "Cube" });
    const scene = [...peer.scene.values()].filter((r) => r.name !== "Crate");
    peer = await connect({ records: scene, stamp: { project, seq: 1 }, dirty: true, file: "/tmp/work.blend" });
    const objects = await objectsOf();
    expect(objects.has("Crate")).toBe(false);
    expect(objects.has("Embedded")).toBe(false);
    expect((await kiln.ok("get_history", { limit: 1 })).entries[0]).toMatchObject({ kind: "live", tool: "live_edit" });
    await close(peer, "bye");
  });

  it("a saved file Kiln has never seen becomes Kiln's working state, as one undoable operation", async () => {
    const records: Rec[] = [
      { type: "app", id: "app/blender", app: "blender", activeScene: "Scene" },
      { type: "scene", id: "scene/blender/Scene", app: "blender", name: "Scene", camera: { position: { x: 1, y: 2, z: 3 }, rotation: { x: 90, y: 0, z: 0 }, fov: 39.6 } },
      obj("Scene", "Suzanne", { position: { x: 0, y: 0, z: 1 } }),
    ];
    peer = await connect({ records, file: "/home/ann/monkey.blend" });
    const scene = await kiln.ok("get_scene", { app: "blender" });
    expect(scene).toMatchObject({ scene: "Scene", scenes: ["Scene"], camera: { fov: 39.6 } });
    expect(scene.objects.map((o: any) => o.name)).toEqual(["Suzanne"]);
    expect((await kiln.ok("get_history", { limit: 1 })).entries[0]).toMatchObject({ kind: "live", tool: "live_adopt", app: "blender" });
    await close(peer, "bye");
  });

  it("hello records that do not validate are refused", async () => {
    const bad = await connect({ records: [{ type: "object", id: "x", app: "blender", name: "\u0000" } as Rec] });
    expect(bad.refused).toMatchObject({ code: "INVALID_HELLO" });
  });
});
