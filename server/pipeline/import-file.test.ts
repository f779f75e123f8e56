// Invariant: import_asset reads only inside the project folder and <KILN_HOME>/assets, judged on
// the requested path and again on its realpath; the rest of KILN_HOME (the database) is refused
// even when it lies inside the project folder. Refusals happen before anything is read or changed.
// Texture images an MTL or a USDA names are read only from beside the file, also after realpath.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Kiln } from "../runtime";
import { allowedRoots, findSideFiles, importAssetFile } from "./import-file";

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

describe("import_asset side images", () => {
  const folder = path.join(project, "models");
  mkdirSync(path.join(folder, "tex"), { recursive: true });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  writeFileSync(path.join(project, "outside.png"), png); // allowed for import_asset, but not beside the file
  writeFileSync(path.join(folder, "good.png"), png);
  writeFileSync(path.join(folder, "tex", "sub.png"), png);
  symlinkSync(path.join(project, "outside.png"), path.join(folder, "link.png"));
  const refs = ["good.png", "tex/sub.png", "../outside.png", "/etc/hostname", path.join(project, "outside.png"), "link.png", "tex/../../outside.png"];
  writeFileSync(path.join(folder, "a.obj"), "mtllib a.mtl\no A\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  writeFileSync(path.join(folder, "a.mtl"), refs.map((r, i) => `newmtl M${i}\nmap_Kd -s 1 1 1 ${r}\n`).join(""));
  writeFileSync(path.join(folder, "a.usda"), `#usda 1.0\n${refs.map((r, i) => `def Shader "T${i}"\n{\n    asset inputs:file = @${r}@\n}\n`).join("")}`);

  it.each(["obj", "usd"] as const)("%s: reads images beside the file and none from elsewhere", async (format) => {
    const main = path.join(folder, format === "obj" ? "a.obj" : "a.usda");
    const side = await findSideFiles(main, main, format, await allowedRoots(kiln), 100);
    const expected = { "good.png": path.join(folder, "good.png"), "tex/sub.png": path.join(folder, "tex", "sub.png") };
    expect(side).toEqual(format === "obj" ? { "a.mtl": path.join(folder, "a.mtl"), ...expected } : expected);
  });
});
