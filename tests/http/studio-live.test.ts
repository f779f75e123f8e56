/**
 * GET /events and the undo/redo tools over HTTP, against one service started with a token: every
 * change shows in the stream with its source; undo and redo change the scene and history as
 * docs/undo.md says, with several clients and inside a transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

const TOKEN = "studio-live-test-token";
const auth = { authorization: `Bearer ${TOKEN}` };
let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer({ env: { KILN_TOKEN: TOKEN } }); });
afterAll(async () => { await kiln?.stop(); });

async function call(tool: string, params: unknown = {}, headers: Record<string, string> = {}) {
  const r = await fetch(`${kiln.url}/tools/${tool}`, { method: "POST", headers: { ...auth, "content-type": "application/json", ...headers }, body: JSON.stringify(params) });
  return { status: r.status, body: await r.json() };
}
async function ok(tool: string, params: unknown = {}) {
  const r = await call(tool, params);
  expect(r.body.ok, JSON.stringify(r.body)).toBe(true);
  return r.body.result;
}

/** An open /events stream that collects parsed events. */
async function openStream(query = "", headers: Record<string, string> = auth) {
  const controller = new AbortController();
  const r = await fetch(`${kiln.url}/events${query}`, { headers, signal: controller.signal });
  const events: any[] = [];
  let text = "";
  const reading = (async () => {
    const reader = r.body!.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
      let end;
      while ((end = text.indexOf("\n\n")) !== -1) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const data = block.split("\n").find((l) => l.startsWith("data: "));
        if (data) events.push(JSON.parse(data.slice(6)));
      }
    }
  })();
  const waitFor = async (pred: (e: any) => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const hit = events.find(pred);
      if (hit) return hit;
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error(`no matching event within ${ms} ms; got ${JSON.stringify(events.map((e) => e.kind + ":" + (e.tool ?? e.action)))}`);
  };
  return { response: r, events, waitFor, close: () => { controller.abort(); return reading; } };
}

describe("GET /events", () => {
  it("refuses without the token, a foreign Origin and unknown kinds", async () => {
    expect((await fetch(`${kiln.url}/events`)).status).toBe(401);
    expect((await fetch(`${kiln.url}/events`, { headers: { ...auth, origin: "http://evil.example" } })).status).toBe(403);
    const bad = await fetch(`${kiln.url}/events?kinds=operation,nope`, { headers: auth });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: "INVALID_PARAMS" });
  });

  it("streams operations with their source and records, and the other kinds", async () => {
    const stream = await openStream();
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await ok("create_gameobject", { name: "Crate", type: "Cube", app: "blender", position: { x: 1, y: 2, z: 3 } });
    const op = await stream.waitFor((e) => e.kind === "operation" && e.tool === "create_gameobject");
    expect(op).toMatchObject({ source: "http", app: "blender", branch: "main", op: "tool", changes: 1, transaction: null });
    expect(op.scenes).toEqual(["blender/Main"]);
    expect(op.records[0].after).toMatchObject({ type: "object", name: "Crate", position: { x: 1, y: 2, z: 3 } });
    expect(typeof op.id).toBe("number");

    await call("set_transform", { target: "Crate", app: "blender", position: { x: 0 } }, { "x-kiln-client": "cli" });
    expect(await stream.waitFor((e) => e.tool === "set_transform")).toMatchObject({ source: "cli" });

    await ok("begin_transaction", { name: "t1" });
    await ok("commit_transaction");
    await ok("save_version", { name: "v1" });
    await ok("create_branch", { name: "side" });
    await stream.waitFor((e) => e.kind === "transaction" && e.action === "committed");
    await stream.waitFor((e) => e.kind === "version" && e.action === "saved" && e.name === "v1");
    await stream.waitFor((e) => e.kind === "branch" && e.action === "created" && e.name === "side");
    await stream.close();
  });

  it("keeps only the kinds asked for and resumes after Last-Event-ID", async () => {
    const versionsOnly = await openStream("?kinds=version");
    const all = await openStream();
    await ok("create_gameobject", { name: "Resume1", type: "Empty" });
    await ok("save_version", { name: "v2" });
    const saved = await versionsOnly.waitFor((e) => e.kind === "version" && e.name === "v2");
    expect(versionsOnly.events.every((e) => e.kind === "version")).toBe(true);
    const first = await all.waitFor((e) => e.tool === "create_gameobject" && e.records?.[0]?.after?.name === "Resume1");
    await versionsOnly.close();
    await all.close();
    const resumed = await openStream("", { ...auth, "last-event-id": String(first.id) });
    const again = await resumed.waitFor((e) => e.kind === "version" && e.name === "v2");
    expect(again.id).toBe(saved.id);
    await resumed.close();
    const tooOld = await openStream("?last_event_id=999999");
    expect(await tooOld.waitFor((e) => e.kind === "reset")).toBeTruthy();
    await tooOld.close();
  });
});

describe("undo and redo", () => {
  const crate = async () => (await ok("get_scene", { app: "godot" })).objects.find((o: any) => o.name === "UndoBox");

  it("undo inverts the last change as a new history entry, redo re-applies it", async () => {
    await ok("create_gameobject", { name: "UndoBox", type: "Cube", app: "godot" });
    await ok("set_transform", { target: "UndoBox", app: "godot", position: { x: 5 } });
    const stream = await openStream("?kinds=operation");
    const undone = await ok("undo");
    expect(undone).toMatchObject({ tools: ["set_transform"], changed_records: 1, can_undo: true, can_redo: true });
    expect((await crate()).position.x).toBe(0);
    expect(await stream.waitFor((e) => e.op === "undo")).toMatchObject({ tool: "undo", source: "http", scenes: ["godot/Main"] });
    const history = await ok("get_history", { limit: 2 });
    expect(history.entries.map((e: any) => e.kind)).toEqual(["undo", "tool"]);
    const redone = await ok("redo");
    expect(redone).toMatchObject({ tools: ["set_transform"], can_redo: false });
    expect((await crate()).position.x).toBe(5);
    expect((await call("redo")).body.error).toMatchObject({ code: "NOTHING_TO_REDO" });
    await stream.close();
  });

  it("undoes the session's last change (plain HTTP calls share one session), and a new change ends redo", async () => {
    await ok("undo"); // the redo above: x back to 0
    expect((await crate()).position.x).toBe(0);
    await ok("create_gameobject", { name: "Other", type: "Empty", app: "godot" });
    const r = await ok("undo");
    expect(r.tools).toEqual(["create_gameobject"]);
    expect((await ok("get_scene", { app: "godot" })).objects.some((o: any) => o.name === "Other")).toBe(false);
    await ok("set_transform", { target: "UndoBox", app: "godot", position: { y: 1 } });
    expect((await call("redo")).status).toBe(409);
  });

  it("stays inside an open transaction, and undoes a committed one as one step", async () => {
    await ok("begin_transaction", { name: "grouped" });
    await ok("create_gameobject", { name: "T1", type: "Empty", app: "godot" });
    await ok("create_gameobject", { name: "T2", type: "Empty", app: "godot" });
    expect((await ok("undo")).tools).toEqual(["create_gameobject"]);
    await ok("undo");
    const boundary = await call("undo");
    expect(boundary.status).toBe(409);
    expect(boundary.body.error.code).toBe("TRANSACTION_BOUNDARY");
    await ok("redo");
    await ok("create_gameobject", { name: "T3", type: "Empty", app: "godot" });
    await ok("commit_transaction");
    const names = async () => (await ok("get_scene", { app: "godot" })).objects.map((o: any) => o.name);
    expect(await names()).toEqual(expect.arrayContaining(["T1", "T3"]));
    const whole = await ok("undo");
    expect(whole.steps.length).toBeGreaterThanOrEqual(3);
    expect(await names()).not.toContain("T1");
    expect(await names()).not.toContain("T3");
    await ok("redo");
    expect(await names()).toEqual(expect.arrayContaining(["T1", "T3"]));
  });

  it("takes no parameters", async () => {
    const r = await call("undo", { steps: 2 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("INVALID_PARAMS");
  });
});
