// Invariant: import_asset reads only inside the project folder and <KILN_HOME>/assets, judged on
// the requested path and again on its realpath; the rest of KILN_HOME (the database) is refused
// even when it lies inside the project folder. Refusals happen before anything is read or changed.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Kiln } from "../runtime";
import { importAssetFile } from "./import-file";

const project = mkdtempSync(path.join(tmpdir(), "kiln-import-"));
const home = path.join(project, ".kiln");
mkdirSync(path.join(home, "assets"), { recursive: true });
writeFileSync(path.join(home, "kiln.db"), "SQLite format 3");
symlinkSync("/etc/hostname", path.join(project, "link.obj"));
symlinkSync(path.join(home, "kiln.db"), path.join(home, "assets", "db.obj"));
// Refusals must happen before the workspace is touched: a Kiln without one proves it.
const kiln = { config: { projectDir: project, home } } as unknown as Kiln;
const attempt = (p: string, format?: string) => importAssetFile(kiln, { app: "blender", path: p, format });

describe("import_asset paths", () => {
  it.each([
    ["the database inside the project's .kiln", ".kiln/kiln.db", "obj", "PATH_NOT_ALLOWED"],
    ["an assets symlink to the database", ".kiln/assets/db.obj", undefined, "PATH_NOT_ALLOWED"],
    ["a project symlink leading out", "link.obj", undefined, "PATH_NOT_ALLOWED"],
    ["an absolute path elsewhere", "/etc/hostname", "obj", "PATH_NOT_ALLOWED"],
    ["a missing file in the assets folder", ".kiln/assets/none.glb", undefined, "FILE_NOT_FOUND"],
    ["a NUL byte", "a\u0000.obj", undefined, "INVALID_PATH"],
  ])("refuses %s", async (_label, p, format, code) => {
    await expect(attempt(p, format)).rejects.toMatchObject({ code });
  });
});
