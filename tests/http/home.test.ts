/**
 * `/` shows people the service's status (address, database, apps and their scenes with object
 * counts), the studio pages, a newcomer's path and the tool catalogue grouped by group.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

describe("the home page", () => {
  it("shows status, scenes with object counts and the catalogue", async () => {
    await kiln.ok("create_gameobject", { name: "A", type: "Cube", app: "blender" });
    await kiln.ok("create_gameobject", { name: "B", type: "Cube", app: "blender" });
    const r = await fetch(`${kiln.url}/`);
    expect(r.status).toBe(200);
    const html = (await r.text()).replace(/<!-- -->/g, "");
    expect(html).toContain(kiln.url.replace("http://", ""));
    expect(html).toContain("SQLite");
    expect(html).toMatch(/blender[\s\S]*Main[\s\S]*2 objects/);
    for (const group of ["Editor", "Version control", "Transactions"]) expect(html).toContain(group);
    for (const tool of ["create_gameobject", "save_version", "begin_transaction"]) expect(html).toContain(`id="${tool}"`);
    // The shared navigation, and the newcomer's three steps.
    for (const href of ["/scene", "/versions", "/pipeline", "/recipes"]) expect(html).toContain(`href="${href}"`);
    expect(html).toMatch(/Open the scene[\s\S]*Run a sample recipe[\s\S]*Connect an application/);
    expect(html).toContain('href="/recipes/basic-scene-setup"');
  });

  it("refuses a foreign Host", async () => {
    const r = await rawRequest(`${kiln.url}/`, { headers: { host: "attacker.example" } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("HOST_REFUSED");
  });
});
