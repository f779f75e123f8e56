/**
 * The asset pipeline over HTTP, against the running service: for every path and format of the
 * spec's table a parented, materialled, animated asset arrives in the target scene where it was in
 * the physical world (names, hierarchy, transforms within 1e-4, triangles, colours, keys), from a
 * real file that an independent reader accepts; round trips return the original transforms;
 * errors are the documented ones and change nothing; rollback and restarts behave.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateBytes } from "gltf-validator";
import { USDLoader } from "three/examples/jsm/loaders/USDLoader.js";
import type { Mesh } from "three";
import { startServer, type KilnServer } from "../helpers/server";
import { lightAxes, matrixDistance, physicalBox, physicalPoint, physicalWorld, type App, type SceneObject } from "../helpers/placement";
import { assimpInfo } from "../fixtures/formats/assimp";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

const TABLE: [App, App, string[]][] = [
  ["blender", "unity", ["fbx", "gltf", "obj", "usd"]],
  ["blender", "godot", ["gltf", "obj", "fbx"]],
  ["unity", "blender", ["fbx", "obj"]],
  ["godot", "blender", ["gltf", "obj"]],
];
const CASES = TABLE.flatMap(([s, t, formats]) => formats.map((f) => [s, t, f] as const));
const TOL = 1e-4;
const colour = { r: 0.8, g: 0.2, b: 0.1, a: 1 };

/** Rig (Empty) → Body (Cube, material, 3 keys; Blender: mirror modifier) → Head (Sphere); Rig → Lamp (Spot). */
async function buildAsset(app: App, tag: string) {
  const n = { rig: `Rig_${tag}`, body: `Body_${tag}`, head: `Head_${tag}`, lamp: `Lamp_${tag}`, mat: `Paint_${tag}` };
  await kiln.ok("create_gameobject", { app, name: n.rig, type: "Empty", position: { x: 1, y: 2, z: 3 }, rotation: { x: 10, y: 20, z: 30 } });
  await kiln.ok("create_gameobject", { app, name: n.body, type: "Cube", parent: n.rig, position: { x: 0, y: 0.5, z: 1 }, rotation: { x: 0, y: 45, z: 0 }, scale: { x: 1, y: 2, z: 0.5 } });
  await kiln.ok("create_gameobject", { app, name: n.head, type: "Sphere", parent: n.body, position: { x: 0, y: 1, z: 0 } });
  await kiln.ok("create_light", { app, name: n.lamp, type: "Spot", intensity: 2, range: 8, spot_angle: 50, parent: n.rig, rotation: { x: 30, y: 0, z: 0 } });
  await kiln.ok("create_material", { app, name: n.mat, color: colour, metallic: 0.3, roughness: 0.6 });
  await kiln.ok("set_material", { app, target: n.body, material: n.mat });
  await kiln.ok("set_keyframe", { app, target: n.body, time: 0 });
  await kiln.ok("set_keyframe", { app, target: n.body, time: 1, position: { y: 2 }, rotation: { y: 90 } });
  await kiln.ok("set_keyframe", { app, target: n.body, time: 2.5, rotation: { y: 200 } });
  if (app === "blender") await kiln.ok("add_modifier", { app, target: n.body, type: "mirror", axis: "x" });
  return n;
}

const sceneOf = async (app: App) => (await kiln.ok("get_scene", { app })) as { objects: SceneObject[]; materials: { name: string; color: typeof colour; metallic: number; roughness: number }[] };
const assetsOf = async (app: App) => new Map(((await kiln.ok("list_transferable_assets", { app })).assets as { name: string; triangles: number; bounds: { min: any; max: any } | null }[]).map((a) => [a.name, a]));

async function checkFile(format: string, file: { path: string; bytes: number; sha256: string }) {
  const bytes = readFileSync(file.path);
  expect(bytes.length).toBe(file.bytes);
  const { createHash } = await import("node:crypto");
  expect(createHash("sha256").update(bytes).digest("hex")).toBe(file.sha256);
  if (format === "gltf") {
    const report = await validateBytes(new Uint8Array(bytes));
    expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  }
  if (format !== "usd") {
    const info = assimpInfo(file.path);
    if (info === null) throw new Error("assimp is not installed: apt-get install -y assimp-utils (CI installs it)");
    expect(info.exitCode, info.output).toBe(0);
  } else {
    const group = new USDLoader().parse(bytes.toString("utf8"));
    const meshes: Mesh[] = [];
    group.traverse((o) => (o as Mesh).isMesh && meshes.push(o as Mesh));
    expect(meshes.length).toBe(2);
  }
}

describe("every path and format of the table", () => {
  it.each(CASES)("%s → %s as %s", async (source, target, format) => {
    const tag = `${source}_${target}_${format}`;
    const n = await buildAsset(source, tag);
    const before = await assetsOf(source);
    const r = await kiln.call("transfer_asset", { source_app: source, target_app: target, asset: n.rig, format: format.toUpperCase(), options: {} });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const res = r.body.result;
    expect(res).toMatchObject({ status: "succeeded", source_app: source, target_app: target, format, imported: { root: n.rig, materials: 1 } });
    expect(res.file.path).toContain(`/assets/${res.transfer_id}/`);
    await checkFile(format, res.file);

    const src = await sceneOf(source), dst = await sceneOf(target);
    const after = await assetsOf(target);
    expect(res.imported.triangles).toBe(before.get(n.rig)!.triangles);
    expect(after.get(n.rig)!.triangles).toBe(before.get(n.rig)!.triangles);
    expect(dst.materials.find((m) => m.name === n.mat)).toMatchObject({ color: { r: expect.closeTo(0.8, 3), g: expect.closeTo(0.2, 3), b: expect.closeTo(0.1, 3), a: 1 } });
    expect(dst.objects.find((o) => o.name === n.body)).toMatchObject({ material: n.mat });
    // Bounds cover an object and its descendants: the whole asset, and a leaf whatever the format keeps.
    for (const name of [n.rig, n.head]) {
      const a = physicalBox(source, before.get(name)!.bounds!), b = physicalBox(target, after.get(name)!.bounds!);
      [...a.min, ...a.max].forEach((v, i) => expect(Math.abs(v - [...b.min, ...b.max][i]), `bounds of ${name}`).toBeLessThan(TOL));
    }

    if (format === "obj") {
      // OBJ keeps meshes only, in world space: grouped under an Empty named after the asset.
      expect(dst.objects.filter((o) => o.parent === n.rig).map((o) => o.name).sort()).toEqual([n.body, n.head].sort());
      expect(res.warnings).toEqual(expect.arrayContaining([
        "obj: node hierarchy and transforms dropped (baked into world-space vertices)", `obj: spot light on node "${n.lamp}" dropped`,
        expect.stringMatching(new RegExp(`^obj: animation of node "${n.body}" dropped`)),
      ]));
      return;
    }
    expect(res.imported.objects).toBe(4);
    for (const [name, parent] of [[n.rig, null], [n.body, n.rig], [n.head, n.body], [n.lamp, n.rig]] as const) {
      expect(dst.objects.find((o) => o.name === name)?.parent, `parent of ${name}`).toBe(parent);
      if (name === n.lamp) continue;
      expect(matrixDistance(physicalWorld(target, dst.objects, name), physicalWorld(source, src.objects, name)), `placement of ${name}`).toBeLessThan(TOL);
    }
    const [la, lb] = [lightAxes(source, src.objects, n.lamp), lightAxes(target, dst.objects, n.lamp)];
    for (const k of ["forward", "up", "position"] as const) expect(la[k].distanceTo(lb[k]), `lamp ${k}`).toBeLessThan(TOL);
    expect(dst.objects.find((o) => o.name === n.lamp)).toMatchObject({ light: { type: "Spot", intensity: 2, range: 8, spotAngle: expect.closeTo(50, 3) } });

    const keysA = src.objects.find((o) => o.name === n.body)!.keyframes!, keysB = dst.objects.find((o) => o.name === n.body)!.keyframes!;
    expect(keysB.map((k) => k.time)).toEqual([0, 1, 2.5]);
    keysA.forEach((k, i) => {
      if (k.position) expect(physicalPoint(source, k.position).distanceTo(physicalPoint(target, keysB[i].position!)), `key ${i} position`).toBeLessThan(TOL);
    });
  });
});

describe("round trips", () => {
  it.each([["unity", "fbx", "fbx"], ["godot", "gltf", "gltf"], ["unity", "gltf", "fbx"]] as const)("Blender → %s (%s) → Blender (%s) returns every transform and triangle count", async (via, there, back) => {
    const tag = `trip_${via}_${there}`;
    const n = await buildAsset("blender", tag);
    await kiln.ok("transfer_asset", { source_app: "blender", target_app: via, asset: n.rig, format: there });
    const home = await kiln.ok("transfer_asset", { source_app: via, target_app: "blender", asset: n.rig, format: back });
    expect(home.imported.root).toBe(`${n.rig}.001`);
    expect(home.warnings).toContain(`name clash in blender: object "${n.rig}" imported as "${n.rig}.001"`);
    const { objects } = await sceneOf("blender");
    const assets = await assetsOf("blender");
    for (const name of [n.rig, n.body, n.head, n.lamp]) {
      const a = objects.find((o) => o.name === name)!, b = objects.find((o) => o.name === `${name}.001`)!;
      for (const k of ["position", "rotation", "scale"] as const)
        for (const c of ["x", "y", "z"] as const) expect(Math.abs(a[k][c] - b[k][c]), `${k}.${c} of ${name}`).toBeLessThan(TOL);
      expect(assets.get(`${name}.001`)!.triangles).toBe(assets.get(name)!.triangles);
    }
    // The modifier was baked on the way out, so the mesh came home with it applied.
    expect(objects.find((o) => o.name === `${n.body}.001`)).not.toHaveProperty("modifiers");
  });
});

describe("options and names", () => {
  it("apply_modifiers false exports the base mesh and names the modifier; include_animations false exports no keys", async () => {
    const n = await buildAsset("blender", "opts");
    const res = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "godot", asset: n.body, format: "glTF", options: { apply_modifiers: false, include_animations: "false" } });
    expect(res.imported.triangles).toBe(12 + 720);
    expect(res.warnings).toEqual([
      `modifier mirror (x) of "${n.body}" not applied (apply_modifiers: false); its base mesh was exported`,
      `3 keyframes of "${n.body}" not exported (include_animations: false)`,
    ]);
    const body = (await sceneOf("godot")).objects.find((o) => o.name === n.body)!;
    expect(body.keyframes).toBeUndefined();
  });

  it("a name taken in the target gets Blender's .001 suffix, reported in the result", async () => {
    await kiln.ok("create_gameobject", { app: "blender", name: "Crate", type: "Cube" });
    await kiln.ok("create_gameobject", { app: "godot", name: "Crate", type: "Sphere" });
    const res = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "godot", asset: "Crate", format: "obj" });
    expect(res.imported).toMatchObject({ root: "Crate.001", renamed: [{ kind: "object", from: "Crate", to: "Crate.001" }] });
    const again = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "godot", asset: "Crate", format: "obj" });
    expect(again.imported.root).toBe("Crate.002");
  });
});

describe("refusals change nothing", () => {
  const cases: [string, Record<string, unknown>, number, string, (d: any) => void][] = [
    ["an unsupported format", { source_app: "blender", target_app: "godot", asset: "Crate", format: "usd" }, 400, "UNSUPPORTED_TRANSFER", (d) => expect(d.supported_formats).toEqual(["gltf", "obj", "fbx"])],
    ["an unsupported path", { source_app: "unity", target_app: "godot", asset: "Crate", format: "fbx" }, 400, "UNSUPPORTED_TRANSFER", (d) => expect(d.supported_formats).toEqual([])],
    ["a format from another path", { source_app: "unity", target_app: "blender", asset: "Crate", format: "gltf" }, 400, "UNSUPPORTED_TRANSFER", (d) => expect(d.supported_formats).toEqual(["fbx", "obj"])],
    ["an unknown asset", { source_app: "blender", target_app: "unity", asset: "crate", format: "fbx" }, 404, "ASSET_NOT_FOUND", (d) => expect(d).toMatchObject({ available: expect.arrayContaining(["Crate"]), suggestion: "Crate" })],
    ["a bad app", { source_app: "maya", target_app: "unity", asset: "Crate", format: "fbx" }, 400, "INVALID_PARAMS", (d) => expect(d.fields.map((f: { path: string }) => f.path)).toEqual(["source_app"])],
    ["an unknown option", { source_app: "blender", target_app: "unity", asset: "Crate", format: "fbx", options: { bake: true } }, 400, "INVALID_PARAMS", () => {}],
  ];
  it.each(cases)("%s", async (_label, params, status, code, details) => {
    const before = JSON.stringify(await Promise.all((["blender", "unity", "godot"] as const).map(sceneOf)));
    const transfers = (await kiln.ok("get_pipeline_status", {})).total_transfers;
    const r = await kiln.call("transfer_asset", params);
    expect([r.status, r.body.error?.code]).toEqual([status, code]);
    details(r.body.error.details);
    expect(JSON.stringify(await Promise.all((["blender", "unity", "godot"] as const).map(sceneOf)))).toBe(before);
    expect((await kiln.ok("get_pipeline_status", {})).total_transfers).toBe(transfers);
  });

  it("add_modifier is Blender's only", async () => {
    await kiln.ok("create_gameobject", { app: "unity", name: "NoMods", type: "Cube" });
    const r = await kiln.call("add_modifier", { app: "unity", target: "NoMods", type: "mirror" });
    expect([r.status, r.body.error.code]).toEqual([400, "MODIFIERS_UNSUPPORTED"]);
  });
});

describe("status", () => {
  it("lists transferable assets and shows the path table and recent transfers", async () => {
    const assets = await kiln.call("list_transferable_assets", { app: "BLENDER" }, { method: "GET" });
    expect(assets.status).toBe(200);
    expect(assets.body.result.targets).toEqual({ unity: ["fbx", "gltf", "obj", "usd"], godot: ["gltf", "obj", "fbx"] });
    const status = await kiln.call("get_pipeline_status", { limit: "3" }, { method: "GET" });
    expect(status.body.result.apps.map((a: { app: string; connection: string }) => [a.app, a.connection])).toEqual([["blender", "embedded"], ["unity", "embedded"], ["godot", "embedded"]]);
    expect(status.body.result.paths).toHaveLength(4);
    expect(status.body.result.in_progress).toEqual([]);
    expect(status.body.result.recent).toHaveLength(3);
    expect(status.body.result.recent[0]).toMatchObject({ status: "succeeded", duration_ms: expect.any(Number), file: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    // Who started it: the operating-system user over HTTP (personal mode).
    expect(status.body.result.recent[0].started_by).toMatchObject({ user_id: null, client: "http" });
    expect(status.body.result.recent[0].started_by.name).not.toBe("unknown");
  });
});

describe("transactions and durability", () => {
  it("a transfer inside a transaction is undone by rollback", async () => {
    await kiln.ok("create_gameobject", { app: "blender", name: "TxCrate", type: "Cube" });
    const before = JSON.stringify(await sceneOf("unity"));
    await kiln.ok("begin_transaction", { name: "pipeline" });
    const res = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: "TxCrate", format: "fbx" });
    expect((await sceneOf("unity")).objects.map((o) => o.name)).toContain("TxCrate");
    expect((await kiln.ok("get_transaction_status", {})).transaction.tools).toContain("transfer_asset");
    await kiln.ok("rollback_transaction", {});
    expect(JSON.stringify(await sceneOf("unity"))).toBe(before);
    // The transfer itself stays on record, with its file.
    expect((await kiln.ok("get_pipeline_status", {})).recent[0]).toMatchObject({ transfer_id: res.transfer_id, status: "succeeded" });
  });

  it("an imported asset survives a restart (the log replays it)", async () => {
    await kiln.ok("create_gameobject", { app: "godot", name: "Durable", type: "Cylinder" });
    await kiln.ok("transfer_asset", { source_app: "godot", target_app: "blender", asset: "Durable", format: "gltf" });
    const before = [await sceneOf("blender"), await assetsOf("blender").then((m) => [...m])];
    await kiln.restart();
    // Equal values; key order is not compared (records read back from storage have sorted keys).
    expect([await sceneOf("blender"), await assetsOf("blender").then((m) => [...m])]).toEqual(before);
  });
});
