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
  return { status: response.status, body: (await response.json()) as [{ result?: { data: any }; error?: { message: string; data: { httpStatus: number } } }] };
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

  it("carries the tool's own error sentence", async () => {
    const { body } = await trpc("tools.get_recipe_info", { recipe: "no-such-recipe" });
    expect(body[0].error?.message).toMatch(/^There is no recipe named "no-such-recipe"/);
  });
});
