/**
 * The ownership claim belongs to the database too (issue 26): a second Kiln with its own KILN_HOME
 * but DATABASE_URL at another project's SQLite file is refused, naming the first one's process,
 * instead of starting and answering 500 to every write. (File locks are per database connection,
 * so two claims in one process contend as two processes would.)
 */
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { tryClaimProject, type Ownership } from "./owner";

const dirs: string[] = [];
const held: Ownership[] = [];
const tempDir = (name: string) => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), `kiln-owner-${name}-`)));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const o of held.splice(0)) await o.release();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const claim = async (project: string, env: Record<string, string> = {}) => {
  const got = await tryClaimProject(loadConfig({ ...env } as NodeJS.ProcessEnv, project), "kiln test");
  if ("ownership" in got) held.push(got.ownership);
  return got;
};

describe("a SQLite database is claimed by its owner, wherever the claimant's folder is", () => {
  it("refuses a second project whose DATABASE_URL is the first project's kiln.db, naming the owner", async () => {
    const first = tempDir("first");
    const second = tempDir("second");
    expect("ownership" in (await claim(first))).toBe(true);
    const refused = await claim(second, { DATABASE_URL: `file:${path.join(first, ".kiln", "kiln.db")}` });
    expect("error" in refused && refused.error.message).toMatch(new RegExp(`The SQLite database ${path.join(first, ".kiln", "kiln.db").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is already open in another Kiln process \\(pid ${process.pid}`));
  });

  it("refuses it through a symlink to that database too", async () => {
    const first = tempDir("first-link");
    const second = tempDir("second-link");
    expect("ownership" in (await claim(first))).toBe(true);
    writeFileSync(path.join(first, ".kiln", "kiln.db"), ""); // as the first service's start creates it
    symlinkSync(path.join(first, ".kiln", "kiln.db"), path.join(second, "other.db"));
    const refused = await claim(second, { DATABASE_URL: `file:${path.join(second, "other.db")}` });
    expect("error" in refused).toBe(true);
  });

  it("lets two projects with their own databases both be owned", async () => {
    expect("ownership" in (await claim(tempDir("a")))).toBe(true);
    expect("ownership" in (await claim(tempDir("b")))).toBe(true);
  });
});
