/**
 * What the studio pages read besides the tools: the operation log's source and filters
 * (get_history), a version's render (/versions/<id>/render) and a transfer's file
 * (/transfers/<id>/file), with their refusals. One service for the file.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

const pngSize = (b: Buffer) => ({ signature: b.subarray(1, 4).toString(), width: b.readUInt32BE(16), height: b.readUInt32BE(20) });

describe("the operation log", () => {
  it("records where each call came from and filters by source, tool and app", async () => {
    await kiln.ok("create_gameobject", { name: "FromHttp", type: "Cube", app: "blender" });
    const cli = await kiln.call("create_gameobject", { name: "FromCli", type: "Cube", app: "godot" }, { headers: { "x-kiln-client": "cli" } });
    expect(cli.status).toBe(200);
    const all = (await kiln.ok("get_history", { limit: 2 })).entries;
    expect(all.map((e: any) => [e.app, e.source])).toEqual([["godot", "cli"], ["blender", "http"]]);
    expect((await kiln.ok("get_history", { source: "cli" })).entries.map((e: any) => e.app)).toEqual(["godot"]);
    expect((await kiln.ok("get_history", { app: "blender", tool: "create_gameobject" })).entries).toHaveLength(1);
    const bad = await kiln.call("get_history", { source: "fax" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("INVALID_PARAMS");
  });
});

describe("a version's render", () => {
  it("draws a version and the working state, from the camera asked for", async () => {
    const v = await kiln.ok("save_version", { name: "one cube" });
    const r = await fetch(`${kiln.url}/versions/${v.version_id}/render?app=blender&camera=working`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect(pngSize(Buffer.from(await r.arrayBuffer()))).toEqual({ signature: "PNG", width: 480, height: 270 });
    const w = await fetch(`${kiln.url}/versions/working/render?app=godot&width=64&height=32`);
    expect(pngSize(Buffer.from(await w.arrayBuffer()))).toMatchObject({ width: 64, height: 32 });
  });

  it("refuses bad parameters and unknown versions, clearly", async () => {
    const bad = await fetch(`${kiln.url}/versions/v001/render?app=maya`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatchObject({ code: "INVALID_PARAMS", details: { fields: [{ path: "app" }] } });
    const extra = await fetch(`${kiln.url}/versions/v001/render?app=blender&x=1`);
    expect(extra.status).toBe(400);
    const missing = await fetch(`${kiln.url}/versions/v999/render?app=blender`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("VERSION_NOT_FOUND");
    expect((await fetch(`${kiln.url}/versions/..%2Fetc/render?app=blender`)).status).toBe(400);
  });
});

describe("a transfer's file", () => {
  it("downloads exactly the file the transfer wrote, and nothing else", async () => {
    await kiln.ok("create_gameobject", { name: "Crate", type: "Cube", app: "blender" });
    const t = await kiln.ok("transfer_asset", { source_app: "blender", target_app: "unity", asset: "Crate", format: "gltf" });
    const r = await fetch(`${kiln.url}/transfers/${t.transfer_id}/file`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toMatch(/^attachment; filename="Crate\.glb"$/);
    const body = Buffer.from(await r.arrayBuffer());
    expect(createHash("sha256").update(body).digest("hex")).toBe(t.file.sha256);
    for (const id of ["00000000-0000-0000-0000-000000000000", "..%2F..%2Fkiln.db", "a.b"]) {
      const refused = await fetch(`${kiln.url}/transfers/${id}/file`);
      expect(refused.status).toBe(404);
      expect((await refused.json()).error.code).toBe("TRANSFER_FILE_NOT_FOUND");
    }
  });
});
