/**
 * Every write answered 200 is on disk before the answer: after SIGKILL and a restart, a burst of
 * 200 writes is all there and nothing else. Runs on SQLite and on PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type KilnServer, type Provider } from "../helpers/server";

const providers: Provider[] = ["sqlite", "postgresql"];

describe.each(providers)("persistence on %s", (provider) => {
  let kiln: KilnServer;
  afterAll(async () => { await kiln?.stop(); });

  it("keeps all 200 answered writes across a SIGKILL, and nothing else", async () => {
    kiln = await startServer({ provider });
    await kiln.ok("create_scene", { name: "Burst", app: "godot" });
    const writes = Array.from({ length: 200 }, (_, i) =>
      kiln.call("create_gameobject", { name: `Obj${String(i).padStart(3, "0")}`, type: i % 2 ? "Cube" : "Sphere", position: { x: i }, app: "godot" }));
    const results = await Promise.all(writes);
    expect(results.every((r) => r.status === 200)).toBe(true);
    await kiln.kill("SIGKILL");
    await kiln.restart();
    const scene = await kiln.ok("get_scene", { app: "godot" });
    expect(scene.scene).toBe("Burst");
    expect(scene.objects).toHaveLength(200);
    const names = scene.objects.map((o: { name: string }) => o.name);
    expect(new Set(names).size).toBe(200);
    expect(scene.objects.find((o: { name: string }) => o.name === "Obj123").position).toEqual({ x: 123, y: 0, z: 0 });
    // Nothing else: the other apps are as a new project has them.
    const unity = await kiln.ok("get_scene", { app: "unity" });
    expect(unity.objects).toEqual([]);
  });

  it("keeps every kind of edit across a restart", async () => {
    await kiln.ok("create_material", { name: "Red", color: { r: 1, g: 0, b: 0 }, app: "godot" });
    await kiln.ok("set_material", { target: "Obj001", material: "Red", app: "godot" });
    await kiln.ok("set_transform", { target: "Obj002", position: { y: 5 }, app: "godot" });
    await kiln.ok("delete_object", { target: "Obj003", app: "godot" });
    await kiln.ok("set_camera", { position: { x: 1, y: 2, z: 3 }, fov: 50, app: "godot" });
    const before = await kiln.ok("get_scene", { app: "godot" });
    await kiln.restart();
    expect(await kiln.ok("get_scene", { app: "godot" })).toEqual(before);
  });
});
