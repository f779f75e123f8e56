// Dev aid: plays Kiln's side of the bridge protocol (docs/bridges.md) against a real headless
// Blender running the add-on, to check the WebSocket client, the handshake, apply/dump/render/
// save/export, hand edits, reconnection and the background loop without the Kiln service.
//
//   node tests/interop/blender/fake-kiln.mjs        (exit 0 when every check passes)
//   KILN_FAKE_UI=1 node tests/interop/blender/fake-kiln.mjs   (Blender with its UI, needs xvfb-run)
//
// The real interop tests (vitest, against the running service) live in tests/interop/*.test.ts.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WebSocketServer } from "ws";

const ROOT = resolve(import.meta.dirname, "../../..");
const TOKEN = "t0k3n-" + Math.random().toString(36).slice(2);
const dir = mkdtempSync(join(tmpdir(), "kiln-fake-"));
let failures = 0;
const check = (name, ok, detail = "") => {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${ok ? "" : ": " + detail}`);
  if (!ok) failures++;
};

const freePort = () => new Promise((res) => { const s = createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => res(p)); }); });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const same = (a, b) => {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a), Math.abs(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    return same(ka, kb) && ka.every((k) => same(a[k], b[k]));
  }
  return a === b;
};

/** One fake Kiln: a WebSocket server on /bridge with Kiln's upgrade checks and a message queue. */
function fakeKiln(port) {
  const wss = new WebSocketServer({
    host: "127.0.0.1", port, path: "/bridge", maxPayload: 256 << 20,
    verifyClient: ({ req }, done) => {
      if (req.headers.origin) return done(false, 403);
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return done(false, 401);
      done(true);
    },
  });
  const k = { wss, conn: null, inbox: [], waiters: [], blobs: new Map(), connections: 0 };
  wss.on("connection", (ws) => {
    k.conn = ws; k.connections++;
    ws.on("message", (data, isBinary) => {
      if (isBinary) {
        const hl = data.readUInt32LE(0);
        const header = JSON.parse(data.subarray(4, 4 + hl).toString());
        k.blobs.set(header.blob, { header, payload: data.subarray(4 + hl) });
        return;
      }
      const msg = JSON.parse(data.toString());
      msg._blobs = new Map(k.blobs); k.blobs.clear();
      k.inbox.push(msg);
      k.waiters.splice(0).forEach((w) => w());
    });
  });
  k.next = async (pred, ms = 10000) => {
    const end = Date.now() + ms;
    for (;;) {
      const i = k.inbox.findIndex(pred);
      if (i >= 0) return k.inbox.splice(i, 1)[0];
      if (Date.now() > end) throw new Error("timed out waiting for a message");
      await Promise.race([new Promise((r) => k.waiters.push(r)), sleep(50)]);
    }
  };
  let n = 0;
  k.request = async (msg, ms) => {
    const id = `k${++n}`;
    k.conn.send(JSON.stringify({ ...msg, id }));
    return k.next((m) => m.type === "reply" && m.id === id, ms);
  };
  k.close = () => new Promise((r) => { for (const c of wss.clients) c.terminate(); wss.close(() => r()); });
  return k;
}

const v = (x, y, z) => ({ x, y, z });
const obj = (scene, name, extra) => ({
  type: "object", id: `object/blender/${encodeURIComponent(scene)}/${encodeURIComponent(name)}`, app: "blender", scene, name,
  kind: "mesh", primitive: null, mesh: null, parent: null, material: null, light: null,
  position: v(0, 0, 0), rotation: v(0, 0, 0), scale: v(1, 1, 1), keyframes: [], modifiers: [], ...extra,
});

const port = await freePort();
const url = `ws://127.0.0.1:${port}/bridge`;
// KILN_FAKE_UI=1 runs Blender with its UI (under xvfb-run) instead of -b: timers drive the bridge.
const ui = process.env.KILN_FAKE_UI === "1";
// (A small 24-bit screen and window: software GL redraws of a big one make UI timers crawl.)
const command = ui ? ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", "blender", "-p", "0", "0", "800", "600"] : ["blender", "-b"];
const blender = spawn(command[0], [...command.slice(1), "--factory-startup", "--python", join(ROOT, "tests/interop/blender/artist.py"),
  "--python", join(ROOT, "bridges/blender/start.py"), "--", "--url", url, "--token", TOKEN, "--max-backoff", "1"],
  { stdio: ["ignore", "inherit", "pipe"] });
let exited = null;
let blenderLog = "";
blender.stderr.on("data", (d) => { blenderLog += d; process.stderr.write(d); });
blender.on("exit", (code, sig) => { exited = { code, sig }; });

try {
  // Blender first, Kiln later: a wrong token is refused, then the right one gets in.
  // (Blender's start-up time depends on the machine's load: wait until it is trying to connect.)
  for (let i = 0; i < 600 && !blenderLog.includes("cannot reach"); i++) await sleep(100);
  await sleep(1500);
  let kiln = fakeKiln(port);
  const t0 = Date.now();
  const hello = await kiln.next((m) => m.type === "hello", 20000);
  check("hello within 2 s of Kiln starting (after Blender)", Date.now() - t0 < 2000, `${Date.now() - t0} ms`);
  check("hello fields", hello.protocol === 1 && hello.app === "blender" && /^3\.4/.test(hello.app_version) && hello.instance.length >= 16 && hello.file === "" && hello.stamp === null && hello.dirty === false, JSON.stringify({ ...hello, records: undefined, _blobs: undefined }));
  const cube = hello.records.find((r) => r.id === "object/blender/Scene/Cube");
  check("factory Cube as a mesh blob before the hello", cube && cube.mesh.startsWith("blob:") && hello._blobs.has(cube.mesh.slice(5)) && hello._blobs.get(cube.mesh.slice(5)).header.kind === "mesh");
  check("factory scene camera", hello.records.some((r) => r.id === "scene/blender/Scene" && r.camera.position.x > 7));
  kiln.conn.send(JSON.stringify({ type: "welcome", protocol: 1, project: "p1", session: "s1", heartbeat_ms: 10000 }));

  // Kiln pushes its state: the README scene in Blender conventions, replacing the factory scene.
  const S = "Main";
  const red = { type: "material", id: "material/blender/Red", app: "blender", name: "Red", color: { r: 1, g: 0, b: 0, a: 1 }, metallic: 0, roughness: 0.5 };
  const state = [
    { type: "app", id: "app/blender", app: "blender", activeScene: S },
    { type: "scene", id: `scene/blender/${S}`, app: "blender", name: S, camera: { position: v(7.36, -6.93, 4.96), rotation: v(63.6, 0, 46.7), fov: 40 } },
    red,
    obj(S, "Ground", { primitive: "Plane", scale: v(50, 50, 1) }),
    obj(S, "Sun", { kind: "light", rotation: v(50, -30, 0), light: { type: "Directional", intensity: 1.2, color: { r: 1, g: 1, b: 1, a: 1 }, range: 10, spotAngle: 30 } }),
    obj(S, "Box", { primitive: "Cube", position: v(0, 0, 1), material: "Red" }),
    obj(S, "Gone", { primitive: "Sphere", position: v(-3, 0, 1) }),
    obj(S, "Old", { kind: "empty", position: v(0, 3, 0) }),
    obj(S, "Kid", { primitive: "Cylinder", parent: "Old", position: v(1, 0, 0) }),
  ];
  const byId = new Map(hello.records.map((r) => [r.id, r]));
  const changes = state.map((r) => ({ id: r.id, before: byId.get(r.id) ?? null, after: r }));
  for (const r of hello.records) if (!state.some((s) => s.id === r.id)) changes.push({ id: r.id, before: r, after: null });
  let reply = await kiln.request({ type: "apply", seq: 1, label: "push", changes });
  check("apply ok", reply.ok, JSON.stringify(reply.error));

  reply = await kiln.request({ type: "dump" });
  const dumped = new Map(reply.result.records.map((r) => [r.id, r]));
  check("dump equals Kiln's state", state.every((r) => same(dumped.get(r.id), r)) && dumped.size === state.length,
    JSON.stringify(reply.result.records.filter((r) => !state.some((s) => same(s, r)))));

  // An imported mesh: its blob (KEY = mesh id) comes right before the apply that uses it.
  const tri = Buffer.alloc(4 * 9 + 4 * 9 + 4 * 3);
  [0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((x, i) => tri.writeFloatLE(x, 4 * i));
  [0, 0, 1, 0, 0, 1, 0, 0, 1].forEach((x, i) => tri.writeFloatLE(x, 36 + 4 * i));
  [0, 1, 2].forEach((x, i) => tri.writeUInt32LE(x, 72 + 4 * i));
  const header = Buffer.from(JSON.stringify({ blob: "mesh/tri1", kind: "mesh", parts: { positions: [0, 36], normals: [36, 36], indices: [72, 12] } }));
  const len = Buffer.alloc(4); len.writeUInt32LE(header.length);
  kiln.conn.send(Buffer.concat([len, header, tri]), { binary: true });
  const imported = obj(S, "Imported", { mesh: "mesh/tri1", position: v(0, -3, 0) });
  reply = await kiln.request({ type: "apply", seq: 2, label: "import", changes: [{ id: imported.id, before: null, after: imported }] });
  check("apply an imported mesh from a blob", reply.ok, JSON.stringify(reply.error));
  reply = await kiln.request({ type: "dump" });
  check("dump reports the imported mesh by id", same(reply.result.records.find((r) => r.id === imported.id), imported));
  state.push(imported);

  reply = await kiln.request({ type: "apply", seq: 2, label: "bad", changes: [{ id: "object/blender/Main/X", before: null, after: obj(S, "X", { primitive: "Cube", parent: "Nobody" }) }] });
  check("bad apply refused with APP_REFUSED", !reply.ok && reply.error.code === "APP_REFUSED" && /Nobody/.test(reply.error.message), JSON.stringify(reply));
  reply = await kiln.request({ type: "exec", code: "import os; os.system('touch /tmp/pwned')" });
  check("unknown request type answered UNKNOWN_REQUEST", !reply.ok && reply.error.code === "UNKNOWN_REQUEST");

  // Latency of an idle bridge: set_transform-sized applies.
  const times = [];
  let box = state.find((r) => r.name === "Box");
  for (let i = 0; i < 30; i++) {
    const after = { ...box, position: v(0, 0, 1 + i / 100) };
    const t = performance.now();
    reply = await kiln.request({ type: "apply", seq: 2, label: "move", changes: [{ id: box.id, before: box, after }] });
    times.push(performance.now() - t);
    box = after;
    await sleep(20);
  }
  times.sort((a, b) => a - b);
  console.log(`apply round trip p50 ${times[15].toFixed(2)} ms, max ${times[29].toFixed(2)} ms`);
  check("apply round trip p50 under 10 ms", times[15] < 10);

  reply = await kiln.request({ type: "render", width: 320, height: 240 }, 60000);
  const png = reply.ok && reply._blobs.get(reply.result.blob);
  check("render: png blob then reply", png && png.payload.readUInt32BE(16) === 320 && png.payload.readUInt32BE(20) === 240, JSON.stringify(reply));

  // Hand edits: five at once.
  const trigger = obj(S, "Trigger", { kind: "empty" });
  await kiln.request({ type: "apply", seq: 3, label: "trigger", changes: [{ id: trigger.id, before: null, after: trigger }] });
  const t1 = Date.now();
  const seen = { records: [], deleted: [] };
  const meshIds = {};
  while (Date.now() - t1 < 3000 && !(seen.deleted.length >= 2 && seen.records.length >= 6)) {
    const edit = await kiln.next((m) => m.type === "edit", 3000).catch(() => null);
    if (!edit) break;
    seen.records.push(...edit.records); seen.deleted.push(...edit.deleted);
    for (const r of edit.records) if (r.mesh?.startsWith("blob:")) {
      check("edit mesh blob sent", edit._blobs.has(r.mesh.slice(5)));
      meshIds[r.mesh.slice(5)] = `mesh/fakehash-${r.name}`;
    }
    kiln.conn.send(JSON.stringify({ type: "reply", id: edit.id, ok: true, result: { seq: 4, meshes: meshIds } }));
  }
  console.log(`edits arrived in ${Date.now() - t1} ms`);
  const rec = (n) => seen.records.find((r) => r.name === n);
  check("edit: Box moved", rec("Box")?.position.x === 4);
  check("edit: Hand added with a mesh blob", rec("Hand")?.mesh?.startsWith("blob:"));
  check("edit: Gone deleted", seen.deleted.includes("object/blender/Main/Gone"));
  check("edit: Old renamed New (Kid follows)", seen.deleted.includes("object/blender/Main/Old") && rec("New") && rec("Kid")?.parent === "New");
  check("edit: Ground's geometry as a mesh blob", rec("Ground")?.primitive === null && rec("Ground")?.mesh?.startsWith("blob:"), JSON.stringify(rec("Ground")));
  check("edit: Sun brighter", rec("Sun")?.light?.intensity === 3);
  check("edit: Red is green", same(seen.records.find((r) => r.id === "material/blender/Red")?.color, { r: 0, g: 1, b: 0, a: 1 }));
  await sleep(300);
  check("no echo after the edit reply", !kiln.inbox.some((m) => m.type === "edit"), JSON.stringify(kiln.inbox.filter((m) => m.type === "edit")));

  // Save, then read the file from a second Blender.
  const file = join(dir, "live.blend");
  reply = await kiln.request({ type: "save", path: file }, 60000);
  check("save", reply.ok && reply.result.file === file && existsSync(file), JSON.stringify(reply));
  reply = await kiln.request({ type: "dump" });
  const live = reply.result.records;
  const out = join(dir, "dump.json");
  spawnSync("blender", ["-b", file, "--factory-startup", "--python", join(ROOT, "bridges/blender/dump_scene.py"), "--", "--out", out], { stdio: "ignore" });
  const second = JSON.parse(readFileSync(out, "utf8"));
  check("second Blender reads the same records", same(second.records, live), JSON.stringify(second.records.filter((r) => !live.some((l) => same(l, r)))));
  check("saved stamp", second.stamp?.project === "p1" && second.stamp?.seq === 4, JSON.stringify(second.stamp));

  for (const [format, name] of [["gltf", "box.glb"], ["fbx", "box.fbx"], ["obj", "box.obj"]]) {
    reply = await kiln.request({ type: "export", asset: "New", scene: S, format, path: join(dir, name), options: {} }, 120000);
    check(`export ${format}`, reply.ok && existsSync(join(dir, name)), JSON.stringify(reply));
  }

  // Kiln dies; Blender edits while alone; Kiln comes back; Blender reconnects by itself, dirty.
  await kiln.close();
  await sleep(1500);
  kiln = fakeKiln(port);
  const t2 = Date.now();
  const hello2 = await kiln.next((m) => m.type === "hello", 10000);
  console.log(`reconnected ${Date.now() - t2} ms after Kiln restarted`);
  check("reconnect hello: stamp and dirty", hello2.stamp?.project === "p1" && hello2.stamp?.seq === 4 && hello2.dirty === true, JSON.stringify({ stamp: hello2.stamp, dirty: hello2.dirty }));
  check("reconnect hello has the offline move", hello2.records.find((r) => r.name === "Box")?.position.x === 7);
  kiln.conn.send(JSON.stringify({ type: "refused", code: "APP_ALREADY_CONNECTED", message: "another Blender" }));
  await sleep(300);
  await kiln.close();
} catch (e) {
  console.error(e);
  failures++;
} finally {
  blender.kill("SIGTERM");
  for (let i = 0; i < 100 && !exited; i++) await sleep(100);
  check("Blender quits on SIGTERM", exited !== null, "still running");
  if (!exited) blender.kill("SIGKILL");
}
console.log(`${failures} failure(s)`);
process.exit(failures ? 1 : 0);
