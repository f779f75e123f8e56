/**
 * What the browser builder relies on from /api/trpc: queries also answer POST (whole recipes do not
 * fit in a URL), and a failing tool's answer carries Kiln's own sentence as the error message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => {
  kiln = await startServer();
});
afterAll(async () => {
  await kiln?.stop();
});

/** A batched tRPC call as the builder's client sends it (methodOverride: "POST"). */
async function trpc(procedure: string, input: unknown) {
  const response = await fetch(`${kiln.url}/api/trpc/${procedure}?batch=1`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ 0: input }),
  });
  return { status: response.status, body: (await response.json()) as [{ result?: { data: any }; error?: { message: string; data: { httpStatus: number; kiln?: { code: string; message: string } } } }] };
}

describe("/api/trpc for the builder", () => {
  it("answers a query sent as POST, with a recipe far larger than a URL can hold", async () => {
    const steps = Array.from({ length: 300 }, (_, i) => `  - name: Step ${i}\n    tool: create_gameobject\n    params:\n      name: "Box ${i}"\n      type: "Cube"\n`).join("\n");
    const yaml = `name: big\ndescription: many steps\nsteps:\n${steps}`;
    expect(yaml.length).toBeGreaterThan(20_000);
    const { status, body } = await trpc("tools.validate_recipe", { yaml });
    expect(status).toBe(200);
    expect(body[0].result?.data).toMatchObject({ valid: true, errors: [] });
  });

  it("carries the tool's own error sentence, code and status", async () => {
    const { status, body } = await trpc("tools.get_recipe_info", { recipe: "no-such-recipe" });
    expect(status).toBe(404);
    expect(body[0].error?.message).toMatch(/^There is no recipe named "no-such-recipe"/);
    expect(body[0].error?.data).toMatchObject({ httpStatus: 404, kiln: { code: "RECIPE_NOT_FOUND" } });
    const bad = await trpc("tools.create_gameobject", { name: "", type: "Cube" });
    expect(bad.status).toBe(400);
    expect(bad.body[0].error?.data.kiln?.code).toBe("INVALID_PARAMS");
  });

  it.each([
    ["an unknown procedure", "tools.no_such_tool", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }, 404, "UNKNOWN_PROCEDURE"],
    ["a mutation sent as GET", "tools.create_scene?input=%7B%7D", { method: "GET" }, 405, "METHOD_NOT_ALLOWED"],
    ["a body that is not JSON", "tools.list_objects", { method: "POST", body: "x=1", headers: { "content-type": "application/x-www-form-urlencoded" } }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["broken JSON", "tools.create_scene", { method: "POST", body: "{", headers: { "content-type": "application/json" } }, 400, "INVALID_JSON"],
  ] as const)("answers %s with its real status and code, logged as nothing internal", async (_case, target, init, status, code) => {
    const before = kiln.log().length;
    const r = await fetch(`${kiln.url}/api/trpc/${target}`, { ...init, headers: { ...("headers" in init ? init.headers : {}) } });
    expect(r.status).toBe(status);
    const body = (await r.json()) as { error: { data: { httpStatus: number; kiln: { code: string } } } };
    expect(body.error.data).toMatchObject({ httpStatus: status, kiln: { code } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(kiln.log().slice(before)).not.toMatch(/internal error/);
  });

  it("refuses a body over the limit", async () => {
    const r = await fetch(`${kiln.url}/api/trpc/tools.validate_recipe?batch=1`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ 0: { yaml: "x".repeat(2 * 1024 * 1024) } }),
    });
    expect(r.status).toBe(413);
  });
});
