/**
 * /openapi.json is a valid OpenAPI 3.1 document generated from the registry: every tool has its
 * path with exactly the methods /tools answers, and every path and method it declares answers
 * (a 400 for missing parameters is an answer; 405, 500 or an unknown route is not). The human
 * reference at /docs/api lists every tool too.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolMethods } from "../../server/tools/define-tool";
import { allTools } from "../../server/tools";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
let doc: any;
beforeAll(async () => {
  kiln = await startServer();
  const r = await fetch(`${kiln.url}/openapi.json`);
  expect(r.status).toBe(200);
  doc = await r.json();
});
afterAll(async () => { await kiln?.stop(); });

describe("/openapi.json", () => {
  it("passes the OpenAPI 3.1 schema validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("has a path per registry tool with the methods /tools answers, and GET /tools", () => {
    expect(Object.keys(doc.paths["/tools"])).toEqual(["get"]);
    for (const tool of allTools()) {
      const ops = doc.paths[`/tools/${tool.name}`];
      expect(ops, tool.name).toBeDefined();
      expect(Object.keys(ops).sort(), tool.name).toEqual(toolMethods(tool).map((m) => m.toLowerCase()).sort());
    }
    expect(Object.keys(doc.paths)).toHaveLength(allTools().length + 1);
  });

  it("describes results in the envelope, errors with the error envelope, and the bearer scheme", () => {
    const post = doc.paths["/tools/create_gameobject"].post;
    expect(post.responses["200"].content["application/json"].schema.properties.ok).toEqual({ const: true });
    expect(doc.components.schemas["create_gameobject.params"].required).toEqual(["name", "type"]);
    for (const status of ["400", "401", "403", "404", "409", "413", "415"]) {
      const name = post.responses[status].$ref.split("/").pop();
      expect(doc.components.responses[name].content["application/json"].schema.$ref).toBe("#/components/schemas/ErrorEnvelope");
    }
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const get = doc.paths["/tools/list_versions"].get;
    expect(get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(["query:limit", "query:offset", "query:branch", "query:person"]);
  });

  it("every path answers every method it declares", async () => {
    const failures: string[] = [];
    for (const [route, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const init: RequestInit = { method: method.toUpperCase() };
        if (method !== "get") Object.assign(init, { headers: { "content-type": "application/json" }, body: "{}" });
        const r = await fetch(`${kiln.url}${route}`, init);
        const body = await r.json().catch(() => null);
        // A 404 from a tool about a missing thing is an answer; an unknown route or tool is not.
        const missing = r.status === 404 && (!body || body.error?.code === "UNKNOWN_TOOL");
        if (r.status === 405 || r.status >= 500 || missing || !body || typeof body.ok !== "boolean")
          failures.push(`${method.toUpperCase()} ${route}: ${r.status} ${JSON.stringify(body)?.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("is refused to a foreign Origin, like /tools", async () => {
    const r = await fetch(`${kiln.url}/openapi.json`, { headers: { origin: "http://evil.example" } });
    expect(r.status).toBe(403);
  });
});

describe("/docs/api", () => {
  it("renders the reference of every tool without external assets", async () => {
    const r = await fetch(`${kiln.url}/docs/api`);
    expect(r.status).toBe(200);
    const html = await r.text();
    for (const tool of allTools()) expect(html).toContain(`id="${tool.name}"`);
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="https?:\/\//);
  });
});
