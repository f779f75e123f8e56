/**
 * A project whose versions were saved before snapshot packs (docs/version-control.md, "Storage")
 * keeps working after the upgrade, on SQLite and on PostgreSQL: its versions list, diff, restore
 * exactly, new saves on top of them record only what changed, deleting one reclaims its records,
 * and all of it holds across a restart. The old versions are written in-process with the old
 * tree format (tests/helpers/legacy-snapshot.ts), then the real service serves the project.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { startKiln } from "../../server/runtime";
import { ObjectStore } from "../../server/versioning/object-store";
import type { Operation } from "../../server/scene/types";
import { legacyTree } from "../helpers/legacy-snapshot";
import { createPgDatabase, ROOT, startServer, type KilnServer, type Provider } from "../helpers/server";

const providers: Provider[] = ["sqlite", "postgresql"];

/** Builds a project with two versions in the old format (v001: 40 objects; v002: 45, one moved) and unsaved work. */
async function oldProject(home: string, databaseUrl: string | undefined) {
  const env = { ...process.env, KILN_HOME: home, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
  if (!databaseUrl) delete env.DATABASE_URL;
  const kiln = await startKiln(loadConfig(env, ROOT), ROOT);
  const store = new ObjectStore(kiln.db);
  const run = (tool: string, params: Record<string, unknown>) => kiln.workspace.execute({ tool, app: "unity", params } as Operation);
  const saveOld = async (number: number, name: string) => {
    const ws = kiln.workspace;
    const { root, created } = legacyTree(new Map(ws.state));
    const branch = await kiln.db.branch.findUniqueOrThrow({ where: { name: "main" } });
    await kiln.db.$transaction(async (tx) => {
      await store.addRefs(tx, [root, root], created);
      await store.release(tx, [branch.workRoot]);
      await tx.setting.upsert({ where: { key: "version_seq" }, create: { key: "version_seq", value: String(number) }, update: { value: String(number) } });
      await tx.branch.update({ where: { name: "main" }, data: { head: number, workRoot: root, workSeq: ws.seq } });
      await tx.version.create({ data: { number, name, branch: "main", parent: branch.head, root, objects: ws.objectCount, changes: 0 } });
    });
  };
  await run("create_material", { name: "Red", color: { r: 1, g: 0, b: 0 } });
  for (let i = 0; i < 40; i++) await run("create_gameobject", { name: `Obj${i}`, type: i % 2 ? "Cube" : "Sphere", position: { x: i } });
  await saveOld(1, "old one");
  for (let i = 40; i < 45; i++) await run("create_gameobject", { name: `Obj${i}`, type: "Cube" });
  await run("set_transform", { target: "Obj3", position: { y: 7 } });
  await saveOld(2, "old two");
  await run("delete_object", { target: "Obj10" }); // unsaved
  await kiln.workspace.flush();
  await kiln.db.$disconnect();
  await kiln.ownership.release();
}

describe.each(providers)("versions saved before packs, on %s", (provider) => {
  let kiln: KilnServer | undefined;
  const home = mkdtempSync(path.join(tmpdir(), "kiln-legacy-"));
  let pgDb: Awaited<ReturnType<typeof createPgDatabase>> | undefined;
  afterAll(async () => {
    await kiln?.stop();
    await pgDb?.drop();
    rmSync(home, { recursive: true, force: true });
  });

  const names = async () => (await kiln!.ok("list_objects", { app: "unity" })).objects.map((o: { name: string }) => o.name).sort();
  const scene = () => kiln!.ok("get_scene", { app: "unity" });

  it("lists, diffs, saves on top of, restores and deletes them, across a restart", async () => {
    if (provider === "postgresql") pgDb = await createPgDatabase();
    await oldProject(home, pgDb?.url);
    kiln = await startServer({ home, databaseUrl: pgDb?.url });

    // The unsaved deletion is there; the old head differs from it.
    expect(await names()).toHaveLength(44);
    expect((await kiln.ok("list_branches")).branches).toEqual([expect.objectContaining({ name: "main", head: "v002", unsaved_changes: true })]);
    expect((await kiln.ok("list_versions")).versions.map((v: { version_id: string }) => v.version_id)).toEqual(["v002", "v001"]);

    // Diffs between old versions, and between an old version and the working state.
    const d12 = await kiln.ok("diff_versions", { from: "v001", to: "v002" });
    expect(d12.apps.unity.objects.added).toHaveLength(5);
    expect(d12.apps.unity.objects.changed).toEqual([expect.objectContaining({ name: "Obj3", fields: { position: { old: { x: 3, y: 0, z: 0 }, new: { x: 3, y: 7, z: 0 } } } })]);
    const d2w = await kiln.ok("diff_versions", { from: "v002", to: "working" });
    expect(d2w.total_changes).toBe(1);
    expect(d2w.apps.unity.objects.removed).toEqual([expect.objectContaining({ name: "Obj10" })]);

    // A save on top of an old version records exactly what changed.
    const v3 = await kiln.ok("save_version", { name: "new three" });
    expect(v3).toMatchObject({ version_id: "v003", parent: "v002", summary: { objects: 44, changes: 1 } });
    const at3 = await scene();
    expect((await kiln.ok("list_branches")).branches[0].unsaved_changes).toBe(false);
    expect((await kiln.ok("diff_versions", { from: "v001", to: "v003" })).total_changes).toBe(6 + 1);

    // Restore the old versions exactly; restoring the new one again needs no auto-save.
    expect(await kiln.ok("restore_version", { version_id: "v001" })).toMatchObject({ auto_saved: null });
    const at1 = await scene();
    expect(await names()).toHaveLength(40);
    expect(at1.objects.find((o: { name: string }) => o.name === "Obj3").position).toEqual({ x: 3, y: 0, z: 0 });
    expect((await kiln.ok("restore_version", { version_id: "v003" })).auto_saved).toBeNull();
    expect(await scene()).toEqual(at3);
    // Restoring an old version's own content again is "no unsaved changes" against it.
    await kiln.ok("restore_version", { version_id: "v002" });
    expect((await kiln.ok("diff_versions", { from: "v002", to: "working" })).total_changes).toBe(0);

    // Deleting an old version reclaims its records stored one by one (v001's 40 objects are shared with v002 but for none).
    const deleted = await kiln.ok("delete_version", { version_id: "v001" });
    expect(deleted).toMatchObject({ deleted: "v001", reparented: ["v002"] });
    expect(deleted.reclaimed_objects).toBeGreaterThan(0);

    await kiln.restart();
    expect((await kiln.ok("list_versions")).versions.map((v: { version_id: string }) => v.version_id)).toEqual(["v003", "v002"]);
    await kiln.ok("restore_version", { version_id: "v003" });
    expect(await scene()).toEqual(at3);
    await kiln.ok("restore_version", { version_id: "v002" });
    expect(await names()).toHaveLength(45);
  }, 300_000);
});
