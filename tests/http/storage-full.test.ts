/**
 * Storage failures against the running service (SQLite, with KILN_HOME on a 2 MB tmpfs; PostgreSQL,
 * with the project's database in a tablespace on a tmpfs): a full disk answers 507 STORAGE_FULL, never 500; a refused call changed nothing (scene, versions, screenshot files); once space is freed the WAL
 * is given back and writes work again, and every write answered 200 survives a SIGKILL.
 * Needs `mount` (CI runs as root); skipped with a message where mounting is not permitted.
 * (Storage that turns read-only under a running service cannot be staged here: the kernel
 * refuses to remount a file system read-only while files are open for writing; the mapping to
 * 503 STORAGE_UNAVAILABLE is unit-tested in server/db/storage-errors.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { PG_ADMIN_URL, startServer, type KilnServer } from "../helpers/server";

const mountPoint = mkdtempSync(path.join(tmpdir(), "kiln-tmpfs-"));
let mounted = false;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint], { stdio: "pipe" });
  mounted = true;
} catch (error) {
  console.warn(`storage-full tests SKIPPED: cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()}); they need root, as CI has.`);
}

/** Fills the file system: writes until ENOSPC; returns the filler's path. */
function fillDisk(at = mountPoint): string {
  const filler = path.join(at, "filler");
  const block = Buffer.alloc(64 * 1024, 1);
  let i = 0;
  try {
    for (; i < 1000; i++) writeFileSync(`${filler}-${i}`, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  }
  return filler;
}

const freeDisk = (at = mountPoint) => {
  for (const f of readdirSync(at)) if (f.startsWith("filler")) rmSync(path.join(at, f), { force: true });
};

describe.skipIf(!mounted)("storage failures (SQLite on a 2 MB tmpfs)", () => {
  let kiln: KilnServer;
  const home = path.join(mountPoint, "home");
  const names = async () => (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name) as string[];

  beforeAll(async () => {
    mkdirSync(home);
    kiln = await startServer({ home });
  });
  afterAll(async () => {
    await kiln?.kill("SIGKILL");
    freeDisk();
    if (mounted) execFileSync("umount", ["-l", mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it("answers 507 STORAGE_FULL on a full disk, with nothing half-applied", async () => {
    for (let i = 0; i < 5; i++) await kiln.ok("create_gameobject", { name: `Before${i}`, type: "Cube" });
    await kiln.ok("save_version", { name: "before" });
    fillDisk();
    // The WAL may still have room inside its own file for a few writes; then the disk is full.
    const accepted: string[] = [];
    let refused: { status: number; body: any } | undefined;
    for (let i = 0; i < 400 && !refused; i++) {
      const name = `Full${i}-${"x".repeat(150)}`;
      const r = await kiln.call("create_gameobject", { name, type: "Sphere" });
      if (r.status === 200) accepted.push(name);
      else refused = { status: r.status, body: r.body };
    }
    expect(refused?.status).toBe(507);
    expect(refused?.body.error.code).toBe("STORAGE_FULL");
    const now = await names();
    expect(now.filter((n) => n.startsWith("Full")).sort()).toEqual([...accepted].sort());

    const versions = (await kiln.ok("list_versions", {})).total;
    const save = await kiln.call("save_version", { name: "while full" });
    expect(save.status).toBe(507);
    expect(save.body.error.code).toBe("STORAGE_FULL");
    expect((await kiln.ok("list_versions", {})).total).toBe(versions);

    const shots = readdirSync(path.join(home, "screenshots")).length;
    const shot = await kiln.call("take_screenshot", { width: 1024, height: 1024 });
    if (shot.status !== 200) {
      expect(shot.status).toBe(507);
      expect(readdirSync(path.join(home, "screenshots")).length).toBe(shots); // no half-written PNG
    }
  });

  it("gives the WAL back and works again once space is freed", async () => {
    const before = await names();
    freeDisk();
    const wal = path.join(home, "kiln.db-wal");
    const deadline = Date.now() + 10_000;
    while (existsSync(wal) && statSync(wal).size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(statSync(wal).size).toBe(0);
    await kiln.ok("create_gameobject", { name: "AfterFree", type: "Cube" });
    const v = await kiln.ok("save_version", { name: "after free" });
    expect(v.version_id).toMatch(/^v\d{3,}$/);
    await kiln.kill("SIGKILL");
    await kiln.restart();
    expect((await names()).sort()).toEqual([...before, "AfterFree"].sort());
  });
});

/**
 * PostgreSQL keeps its write-ahead log in its own data folder, which a test cannot shrink without
 * taking the shared server down; the project's database is put in a tablespace on a tmpfs instead,
 * so its tables and indexes are what runs out of space ("could not extend file", SQLSTATE 53100).
 */
const pgMount = mkdtempSync(path.join(tmpdir(), "kiln-pg-tmpfs-"));
let pgMounted = false;
if (mounted) {
  try {
    const uid = execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim();
    // The database starts as a copy of template1 (~7.5 MB); the rest of the 24 MB is filled below.
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=24m,uid=${uid},mode=0700`, "tmpfs", pgMount], { stdio: "pipe" });
    pgMounted = true;
  } catch (error) {
    console.warn(`PostgreSQL storage-full tests SKIPPED: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
  }
}

describe.skipIf(!pgMounted)("storage failures (PostgreSQL, the database in a tablespace on a 24 MB tmpfs)", () => {
  let kiln: KilnServer;
  const id = `${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const space = `kiln_full_${id}`;
  const db = `kiln_test_full_${id}`;
  const admin = async <T>(f: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    try {
      return await f(c);
    } finally {
      await c.end();
    }
  };
  const names = async () => (await kiln.ok("list_objects", {})).objects.map((o: { name: string }) => o.name) as string[];

  beforeAll(async () => {
    await admin(async (c) => {
      await c.query(`CREATE TABLESPACE ${space} LOCATION '${pgMount}'`);
      await c.query(`CREATE DATABASE ${db} TABLESPACE ${space}`);
    });
    kiln = await startServer({ databaseUrl: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${db}`) });
  });
  afterAll(async () => {
    await kiln?.kill("SIGKILL");
    if (!pgMounted) return;
    freeDisk(pgMount);
    await admin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await c.query(`DROP TABLESPACE IF EXISTS ${space}`);
    }).catch((e) => console.warn(`could not drop the test tablespace: ${e.message}`));
    execFileSync("umount", ["-l", pgMount]);
    rmSync(pgMount, { recursive: true, force: true });
  });

  it("answers 507 STORAGE_FULL on a full tablespace with nothing half-applied, and works again once space is freed", async () => {
    for (let i = 0; i < 5; i++) await kiln.ok("create_gameobject", { name: `Before${i}`, type: "Cube" });
    await kiln.ok("save_version", { name: "before" });
    fillDisk(pgMount);
    // Pages already allocated to the tables take a few rows; then a table must grow and cannot.
    const accepted: string[] = [];
    let refused: { status: number; body: any } | undefined;
    for (let i = 0; i < 2000 && !refused; i++) {
      const name = `Full${i}-${"x".repeat(150)}`;
      const r = await kiln.call("create_gameobject", { name, type: "Sphere" });
      if (r.status === 200) accepted.push(name);
      else refused = { status: r.status, body: r.body };
    }
    expect(refused?.status).toBe(507);
    expect(refused?.body.error.code).toBe("STORAGE_FULL");
    expect((await names()).filter((n) => n.startsWith("Full")).sort()).toEqual([...accepted].sort());
    // The versions' tables may still have room in pages they already hold (how much depends on
    // their row and index sizes): a save that fits is a real save; the first that does not is
    // refused whole.
    let versions = (await kiln.ok("list_versions", {})).total;
    let save = await kiln.call("save_version", { name: "while full 0" });
    for (let i = 1; save.status === 200 && i < 200; i++) {
      expect((await kiln.ok("list_versions", {})).total).toBe(++versions);
      save = await kiln.call("save_version", { name: `while full ${i}` });
    }
    expect(save.status).toBe(507);
    expect(save.body.error.code).toBe("STORAGE_FULL");
    expect((await kiln.ok("list_versions", {})).total).toBe(versions);

    freeDisk(pgMount);
    await kiln.ok("create_gameobject", { name: "AfterFree", type: "Cube" });
    expect((await kiln.ok("save_version", { name: "after free" })).version_id).toMatch(/^v\d{3,}$/);
    const before = await names();
    await kiln.kill("SIGKILL");
    await kiln.restart();
    expect((await names()).sort()).toEqual([...before].sort());
    expect(before).toContain("AfterFree");
    // Every save answered 200 while full was real: all are there after the restart.
    expect((await kiln.ok("list_versions", {})).total).toBe(versions + 1);
  });
});
