// Invariant: import_asset reads only inside the project folder and <KILN_HOME>/assets, judged on
// the requested path and again on its realpath; the rest of KILN_HOME (the database) is refused
// even when it lies inside the project folder. Refusals happen before anything is read or changed.
// Texture images an MTL or a USDA names are read only from beside the file, also after realpath.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Kiln } from "../runtime";
import { LIMITS } from "./formats";
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

// Invariant: the head of a file (64 KiB) decides, before it is read: a file that does not start like
// the format it is read as is refused, whether the format came from its extension or the
// `format` parameter, and each encoding gets its own size cap. Measured on the bytes this process
// reads (/proc/self/io), so "before reading it" is the mechanism asserted, not a time.
describe("import_asset looks at a file's head first", () => {
  const folder = path.join(project, "sparse");
  mkdirSync(folder, { recursive: true });
  const MB = 1e6;
  /** A sparse file of `size` bytes starting with `head`. */
  const sparse = (name: string, size: number, head = "") => {
    const file = path.join(folder, name);
    writeFileSync(file, head);
    truncateSync(file, size);
    return file;
  };
  const readSoFar = () => Number(/rchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))![1]);
  const refusedReading = async (p: string, format: string | undefined, expected: Record<string, unknown>) => {
    const before = readSoFar();
    await expect(attempt(p, format)).rejects.toMatchObject(expected);
    return readSoFar() - before;
  };
  const zeros = sparse("zeros.obj", 600 * MB);

  it.each([
    ["gltf", /starts neither with the "glTF" magic of a GLB nor with the "\{" of glTF JSON/],
    ["fbx", /starts neither with the "Kaydara FBX Binary" magic of a binary FBX nor as ASCII FBX text/],
    ["obj", /holds binary data \(a NUL byte at offset 0\); an OBJ file is text/],
    ["usd", /does not start with the "#usda" header/],
  ])("refuses a 600 MB sparse file read as %s after its first 64 KiB", async (format, message) => {
    const read = await refusedReading(zeros, format, { code: "FORMAT_MISMATCH", status: 400, details: { field: "format", format }, message });
    expect(read).toBeLessThan(4 * 2 ** 20);
  });

  it("refuses by the extension's format with the path as the field", async () => {
    const p = sparse("zeros.glb", 10 * MB);
    await expect(attempt(p)).rejects.toMatchObject({ code: "FORMAT_MISMATCH", details: { field: "path", format: "gltf" } });
  });

  it("gives a 228 MB ASCII FBX the ASCII FBX cap, not the binary one, without reading it", async () => {
    const header = "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\n" + "; padding\n".repeat(7000);
    const p = sparse("ascii.fbx", 228 * MB, header);
    const read = await refusedReading(p, undefined, { code: "FILE_TOO_LARGE", details: { limit: LIMITS.fbxTextBytes, bytes: 228 * MB }, message: /ASCII FBX files of at most 33554432 bytes/ });
    expect(read).toBeLessThan(4 * 2 ** 20);
  });

  it("refuses a GLB whose header declares another length than the file's", async () => {
    const glb = Buffer.alloc(12);
    glb.write("glTF", 0, "latin1");
    glb.writeUInt32LE(2, 4);
    glb.writeUInt32LE(100, 8);
    const p = sparse("lies.glb", 500 * MB, glb.toString("latin1"));
    writeFileSync(p, glb, { flag: "r+" });
    const read = await refusedReading(p, undefined, { code: "FORMAT_MISMATCH", message: /declares 100 bytes in its GLB header but has 500000000/ });
    expect(read).toBeLessThan(4 * 2 ** 20);
  });

  it("gives a GLB's JSON chunk the text cap, refused from the chunk header", async () => {
    const glb = Buffer.alloc(20);
    glb.write("glTF", 0, "latin1");
    glb.writeUInt32LE(2, 4);
    glb.writeUInt32LE(600 * MB, 8);
    glb.writeUInt32LE(600 * MB - 20, 12);
    glb.writeUInt32LE(0x4e4f534a, 16);
    const p = sparse("big-json.glb", 600 * MB, glb.toString("latin1"));
    writeFileSync(p, glb, { flag: "r+" });
    const read = await refusedReading(p, undefined, { code: "FILE_TOO_LARGE", details: { bytes: 600 * MB - 20, limit: LIMITS.textFileBytes }, message: /GLB JSON chunk of 599999980 bytes/ });
    expect(read).toBeLessThan(4 * 2 ** 20);
  });

  it("refuses binary USD as unsupported", async () => {
    await expect(attempt(sparse("binary.usd", 1000, "PXR-USDC"))).rejects.toMatchObject({ code: "UNSUPPORTED_FORMAT" });
  });
});
