/**
 * Version ids stay unique and consecutive under concurrent saves; a SIGKILL during a burst of
 * saves leaves only complete versions; and (property) restoring any saved version yields exactly
 * the state saved. On SQLite and PostgreSQL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { rng } from "../helpers/random";
import { startServer, type KilnServer, type Provider } from "../helpers/server";

const APPS = ["blender", "unity", "godot"] as const;


const world = (kiln: KilnServer) => Promise.all(APPS.map((app) => kiln.ok("get_scene", { app })));

describe.each(["sqlite", "postgresql"] as Provider[])("versions on %s", (provider) => {
  let kiln: KilnServer;
  afterAll(async () => { await kiln?.stop(); });

  it("50 concurrent saves get 50 distinct consecutive ids", async () => {
    kiln = await startServer({ provider });
    await kiln.ok("create_gameobject", { name: "A", type: "Cube" });
    const saves = await Promise.all(Array.from({ length: 50 }, (_, i) => kiln.call("save_version", { name: `s${i}` })));
    expect(saves.every((s) => s.status === 200)).toBe(true);
    const ids = saves.map((s) => Number(s.body.result.version_id.slice(1))).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it("a SIGKILL during a burst of saves leaves only complete versions", async () => {
    // The kill comes once the first save of the burst has been answered (not after a fixed delay,
    // which a loaded machine stretches or shrinks): the others are then under way or queued.
    let firstSaved!: () => void;
    const oneSaved = new Promise<void>((r) => (firstSaved = r));
    const burst = Array.from({ length: 40 }, (_, i) =>
      kiln.call("create_gameobject", { name: `K${i}`, type: "Sphere", app: "godot" })
        .then(() => kiln.call("save_version", { name: `k${i}` }))
        .then((r) => { if (r.status === 200) firstSaved(); })
        .catch(() => null));
    await Promise.race([oneSaved, Promise.all(burst)]);
    await kiln.kill("SIGKILL");
    await Promise.all(burst);
    await kiln.restart();
    const list = await kiln.ok("list_versions", { limit: 500 });
    const ids = list.versions.map((v: { version_id: string }) => Number(v.version_id.slice(1)));
    expect(list.total).toBe(ids.length);
    expect(new Set(ids).size).toBe(ids.length);
    // Every listed version restores, and what it restores has the object count it recorded.
    for (const v of list.versions.slice(0, 12)) {
      const r = await kiln.call("restore_version", { version_id: v.version_id });
      expect(r.status).toBe(200);
      const count = (await world(kiln)).reduce((n, s) => n + s.objects.length, 0);
      expect(count).toBe(v.summary.objects);
    }
  });

  it("property: restoring any version yields exactly the state saved as it", async () => {
    const random = rng(provider === "sqlite" ? 42 : 4242);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
    const saved: { id: string; state: unknown }[] = [];
    const created: Record<string, string[]> = { blender: [], unity: [], godot: [] };
    let n = 0;
    for (let step = 0; step < 120; step++) {
      const app = pick(APPS);
      const r = random();
      if (r < 0.35 || created[app].length === 0) {
        const name = `P${n++}`;
        const res = await kiln.call("create_gameobject", { name, type: pick(["Cube", "Sphere", "Empty", "Plane"]), position: { x: Math.round(random() * 100) / 10 }, app });
        if (res.status === 200) created[app].push(name);
      } else if (r < 0.55) {
        await kiln.call("set_transform", { target: pick(created[app]), rotation: { y: Math.round(random() * 360) }, app });
      } else if (r < 0.65) {
        const target = pick(created[app]);
        const res = await kiln.call("delete_object", { target, app });
        if (res.status === 200) created[app] = created[app].filter((x) => !res.body.result.deleted.includes(x));
      } else if (r < 0.75) {
        await kiln.call("create_material", { name: `M${n++}`, color: { r: random(), g: random(), b: random() }, app });
      } else if (r < 0.8) {
        await kiln.call("set_camera", { position: { x: random() }, app });
      } else if (r < 0.85 && saved.length) {
        // Restores move the working state around between saves, too.
        await kiln.ok("restore_version", { version_id: pick(saved).id });
        for (const a of APPS) created[a] = (await kiln.ok("list_objects", { app: a })).objects.map((o: { name: string }) => o.name);
      } else {
        const v = await kiln.ok("save_version", { name: `prop ${step}` });
        saved.push({ id: v.version_id, state: await world(kiln) });
      }
    }
    expect(saved.length).toBeGreaterThan(5);
    for (const v of saved) {
      await kiln.ok("restore_version", { version_id: v.id });
      expect(await world(kiln)).toEqual(v.state);
    }
    await kiln.restart();
    const last = saved[saved.length - 1];
    await kiln.ok("restore_version", { version_id: last.id });
    expect(await world(kiln)).toEqual(last.state);
  }, 300_000); // 120 random steps with saves: about 40 s at load 16, more under a CPU burner
});
