/**
 * The HTTP contract of DECISIONS.md holds for every tool: envelope, status codes, GET/POST rules,
 * 405 with Allow, unknown parameters, numeric strings, 413, 415, Origin/Host checks, and bad
 * input never changes state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

const sceneJson = async () => JSON.stringify(await kiln.ok("get_scene", {}));

describe("the tool catalogue", () => {
  it("lists every tool with group, methods, description and JSON Schemas", async () => {
    const r = await fetch(`${kiln.url}/tools`);
    const body = await r.json();
    expect(r.status).toBe(200);
    const names = body.result.tools.map((t: { name: string }) => t.name);
    for (const n of ["create_scene", "create_gameobject", "create_light", "set_camera", "take_screenshot", "create_material", "set_material", "get_scene", "list_objects", "set_transform", "delete_object"])
      expect(names).toContain(n);
    const create = body.result.tools.find((t: { name: string }) => t.name === "create_gameobject");
    expect(create).toMatchObject({ group: "editor", methods: ["POST"], input: { type: "object", additionalProperties: false } });
    expect(create.input.properties.type.enum).toEqual(["Plane", "Cube", "Empty", "Sphere", "Cylinder"]);
    expect(create.input.required).toEqual(["name", "type"]);
  });
});

describe("bad requests get the documented status and change nothing", () => {
  const cases: [string, () => Promise<Response>, number, string][] = [
    ["malformed JSON", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" }), 400, "INVALID_JSON"],
    ["a JSON array body", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "application/json" }, body: "[1]" }), 400, "INVALID_PARAMS"],
    ["a text/plain body", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "text/plain" }, body: '{"name":"A","type":"Cube"}' }), 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["wrong types", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":5,"type":"Cube","position":{"x":"left"}}' }), 400, "INVALID_PARAMS"],
    ["an unknown parameter", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"A","type":"Cube","colour":"red"}' }), 400, "INVALID_PARAMS"],
    ["an unknown tool", () => fetch(`${kiln.url}/tools/make_coffee`, { method: "POST" }), 404, "UNKNOWN_TOOL"],
    ["GET on a state-changing tool", () => fetch(`${kiln.url}/tools/create_gameobject?name=A&type=Cube`), 405, "METHOD_NOT_ALLOWED"],
    ["PUT on a read tool", () => fetch(`${kiln.url}/tools/get_scene`, { method: "PUT" }), 405, "METHOD_NOT_ALLOWED"],
    ["a 2 MiB body", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024), type: "Cube" }) }), 413, "BODY_TOO_LARGE"],
    ["a foreign Origin", () => fetch(`${kiln.url}/tools/create_gameobject`, { method: "POST", headers: { "content-type": "application/json", origin: "http://evil.example" }, body: '{"name":"A","type":"Cube"}' }), 403, "ORIGIN_REFUSED"],
    ["a number out of range", () => fetch(`${kiln.url}/tools/take_screenshot`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"width":8,"height":5000}' }), 400, "INVALID_PARAMS"],
  ];
  it.each(cases)("%s", async (_label, send, status, code) => {
    const before = await sceneJson();
    const r = await send();
    expect(r.status).toBe(status);
    const body = await r.json();
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe("string");
    // Every parameter problem, the body's shape included, says which field (path "" = the body).
    if (code === "INVALID_PARAMS") expect(body.error.details.fields.length).toBeGreaterThan(0);
    expect(await sceneJson()).toBe(before);
  });

  it("names every bad field in details", async () => {
    const r = await kiln.call("create_gameobject", { name: "", type: "Cone", position: { x: "a" }, extra: true });
    expect(r.status).toBe(400);
    const paths = r.body.error.details.fields.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(["extra", "name", "position.x", "type"]);
  });

  it("words INVALID_PARAMS for people, from each tool's schema: name, what it takes, what came", async () => {
    const missing = await fetch(`${kiln.url}/tools/get_recipe_info`);
    expect(missing.status).toBe(400);
    const { error } = await missing.json();
    expect(error.message).toBe('Missing required parameter "recipe" (string of 1-200 characters: The recipe\'s name: letters, digits and hyphens.).');
    expect(error.details.fields).toEqual([{ path: "recipe", message: error.message, expected: "string of 1-200 characters: The recipe's name: letters, digits and hyphens." }]);
    expect(error.message).not.toMatch(/Invalid input|received undefined/);

    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ["create_light", { name: "L", type: "Laser" }, "type", /^Parameter "type": expected one of Directional, Point, Spot, not "Laser"\.$/],
      ["take_screenshot", { width: "wide", height: 100 }, "width", /^Parameter "width": expected whole number from 16 to 4096, not "wide"\.$/],
      ["create_material", { name: "M", color: { r: 1, g: 0, b: 0 }, colour: 1 }, "colour", /^Unknown parameter "colour" \(did you mean "color"\?\)\.$/],
      ["list_versions", { limit: 0 }, "limit", /^Parameter "limit": expected whole number from 1 to 500, not 0\.$/],
      ["save_version", {}, "name", /^Missing required parameter "name" \(string of 1-200 characters\)\.$/],
      ["set_camera", { position: { x: 1, w: 2 } }, "position.w", /^Unknown parameter "position\.w"/],
      ["get_recipe_run", { run_id: "nope" }, "run_id", /^Parameter "run_id": run_id is the UUID that run_recipe returned; expected a UUID, not "nope"\.$/],
    ];
    for (const [tool, params, path, message] of cases) {
      const r = await kiln.call(tool, params);
      expect(r.status, tool).toBe(400);
      expect(r.body.error.code).toBe("INVALID_PARAMS");
      expect(r.body.error.message, tool).toMatch(message);
      expect(r.body.error.details.fields[0], tool).toMatchObject({ path, expected: expect.any(String) });
    }
    const several = await kiln.call("create_gameobject", { name: "", type: "Cone" });
    expect(several.body.error.message).toMatch(/^Parameter "name": Object name must not be empty; .* And 1 more problem; see details\.fields\.$/);
  });

  it("refuses a foreign Host (DNS rebinding) and changes nothing", async () => {
    const before = await sceneJson();
    const r = await rawRequest(`${kiln.url}/tools/create_gameobject`, {
      method: "POST", headers: { "content-type": "application/json", host: "evil.example:8080" }, body: '{"name":"A","type":"Cube"}',
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("HOST_REFUSED");
    expect(await sceneJson()).toBe(before);
  });

  it("answers 405 with an Allow header", async () => {
    const r = await fetch(`${kiln.url}/tools/create_scene`);
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("POST");
    const read = await fetch(`${kiln.url}/tools/get_scene`, { method: "DELETE" });
    expect(read.headers.get("allow")).toBe("GET, POST");
  });

  it("allows the service's own origin", async () => {
    const r = await kiln.call("get_scene", {}, { headers: { origin: kiln.url } });
    expect(r.status).toBe(200);
  });
});

describe("parameters", () => {
  it("read tools answer GET with a query string and POST with a body", async () => {
    await kiln.ok("create_gameobject", { name: "Q1", type: "Cube", app: "godot" });
    const get = await kiln.call("list_objects", { app: "GODOT" }, { method: "GET" });
    expect(get.status).toBe(200);
    expect(get.body.result.objects.map((o: { name: string }) => o.name)).toContain("Q1");
    const post = await kiln.call("list_objects", { app: "godot" });
    expect(post.body.result).toEqual(get.body.result);
  });

  it("numbers may arrive as numeric strings", async () => {
    const r = await kiln.ok("create_gameobject", { name: "N1", type: "Sphere", position: { x: "1.5", y: "2" }, scale: { x: "3" } });
    expect(r.object.position).toEqual({ x: 1.5, y: 2, z: 0 });
    expect(r.object.scale).toEqual({ x: 3, y: 1, z: 1 });
  });

  it("app identifiers are case-insensitive and answered in lowercase", async () => {
    const r = await kiln.ok("create_gameobject", { name: "B1", type: "Empty", app: "Blender" });
    expect(r.app).toBe("blender");
  });

  it("a POST without a body is an empty parameter object", async () => {
    const r = await fetch(`${kiln.url}/tools/get_scene`, { method: "POST" });
    expect(r.status).toBe(200);
  });
});
