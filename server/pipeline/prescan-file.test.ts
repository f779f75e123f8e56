// Invariant: a file is counted in constant memory before any reader allocates for what it counts.
// An OBJ of too many objects is refused by the pre-scan after reading the part of it that holds
// the first 100,001 (never the whole file, never a typed array per object), and the reader itself
// checks the count again before each object's arrays exist. Files are generated into a temp dir.
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LIMITS } from "./formats";
import { decodeObj } from "./formats/obj-read";
import { ObjPrescan, UsdaPrescan } from "./formats/prescan";
import { parseUsda } from "./formats/usda-parse";
import { prescanFile } from "./prescan-file";
import { runCodecTask } from "./worker/codec-tasks";

const dir = mkdtempSync(path.join(tmpdir(), "kiln-prescan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One-triangle objects, as in the issue: `count` of them, streamed to disk. */
async function manyObjects(name: string, count: number, statement = "o"): Promise<string> {
  const file = path.join(dir, name);
  const out = createWriteStream(file);
  out.write("v 0 0 0\nv 1 0 0\nv 0 1 0\n");
  for (let i = 0; i < count; i += 10_000) {
    let chunk = "";
    for (let k = i; k < Math.min(count, i + 10_000); k++) chunk += `${statement} O${k}\nf 1 2 3\n`;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  return file;
}

const decodeTask = (main: string) => ({ kind: "decode" as const, format: "obj" as const, main, side: {}, app: "blender" as const, groupName: "x" });

describe("OBJ pre-scan", () => {
  it("refuses 120,000 one-triangle objects before reading the file whole or decoding it", async () => {
    const file = await manyObjects("many.obj", 120_000);
    let read = 0;
    await expect(prescanFile(file, "obj", (n) => (read = n))).rejects.toThrow(/more than 100000 objects with faces/);
    expect(read).toBeLessThanOrEqual(2 ** 21);
    // The decode task runs the pre-scan first: the same refusal, no reader involved.
    await expect(runCodecTask(decodeTask(file))).rejects.toMatchObject({ name: "LimitError", message: expect.stringMatching(/at most 100000 nodes are read/) });
  });

  it("refuses 2,000,000 objects after reading the first few MiB of them", async () => {
    const file = await manyObjects("millions.obj", 2_000_000);
    let read = 0;
    await expect(prescanFile(file, "obj", (n) => (read = n))).rejects.toThrow(/more than 100000 objects with faces/);
    expect(read).toBeLessThanOrEqual(3 * 2 ** 20); // the first 100,001 objects take ~1.9 MB of ~39 MB
  });

  it("counts `g` as objects only in files without `o`, judged at the end", async () => {
    const groups = await manyObjects("groups.obj", LIMITS.nodes + 1, "g");
    await expect(prescanFile(groups, "obj")).rejects.toThrow(`the file has ${LIMITS.nodes + 1} objects with faces`);
    writeFileSync(path.join(dir, "with-o.obj"), "o A\n");
    const mixed = path.join(dir, "mixed.obj");
    writeFileSync(mixed, "o A\n" + "v 0 0 0\nv 1 0 0\nv 0 1 0\n" + "g G\nf 1 2 3\n".repeat(LIMITS.nodes + 1));
    await expect(prescanFile(mixed, "obj")).resolves.toBeUndefined();
  });

  it("counts the same whatever the chunk boundaries (CRLF, BOM, blanks, polygons)", () => {
    const text = "\ufeffo A\r\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n  f 1 2 3 4\r\n#o no\nf 1 2 3\no B\nf\t1 2\t3\no C\no D\nf 1 2 3";
    const bytes = new TextEncoder().encode(text);
    const whole = new ObjPrescan();
    whole.push(bytes);
    whole.end();
    expect(whole.counts()).toEqual({ objects: 3, triangles: 5 });
    for (const size of [1, 2, 3, 7]) {
      const pieces = new ObjPrescan();
      for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
      pieces.end();
      expect(pieces.counts(), `chunks of ${size}`).toEqual(whole.counts());
    }
  });

  it("refuses faces beyond the triangle limit before storing them", () => {
    const scan = new ObjPrescan();
    const face = new TextEncoder().encode(`f ${Array.from({ length: 1002 }, () => "1").join(" ")}\n`);
    expect(() => { for (let k = 0; k <= LIMITS.triangles / 1000; k++) scan.push(face); }).toThrow(/more than 10000000 triangles/);
  });
});

describe("OBJ reader", () => {
  it("checks the object count before allocating an object's arrays (without the pre-scan)", async () => {
    const lines = ["v 0 0 0", "v 1 0 0", "v 0 1 0"];
    for (let k = 0; k <= LIMITS.nodes; k++) lines.push(`o O${k}`, "f 1 2 3");
    const before = process.memoryUsage().arrayBuffers;
    await expect(decodeObj(new Map([["a.obj", new TextEncoder().encode(lines.join("\n"))]]), "a.obj")).rejects.toThrow(/more than 100000 objects with faces/);
    // 100,000 parts with room for one triangle each: a few MiB of typed arrays, where 36 KiB each was 3.6 GB.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(256 * 2 ** 20);
  });

  it("reads 100,000 objects, the limit, with small arrays", async () => {
    const lines = ["v 0 0 0", "v 1 0 0", "v 0 1 0"];
    for (let k = 0; k < LIMITS.nodes; k++) lines.push(`o O${k}`, "f 1 2 3");
    const r = await decodeObj(new Map([["a.obj", new TextEncoder().encode(lines.join("\n"))]]), "a.obj");
    expect(r.scene.nodes).toHaveLength(LIMITS.nodes);
    expect(Array.from(r.scene.meshes[LIMITS.nodes - 1].indices)).toEqual([0, 1, 2]);
    // One summary, not 100,000 warnings (each once checked against all before it: quadratic).
    expect(r.warnings).toEqual(['obj: 100000 objects ("O0", "O1", "O2", "O3", "O4", …) had faces without normals; smooth normals computed']);
  });
});

describe("reader failures", () => {
  it("never show an engine message: a malformed ASCII FBX that makes FBXLoader throw a TypeError reads as malformed", async () => {
    const file = path.join(dir, "broken.fbx");
    writeFileSync(file, `; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\nObjects:  {\n\tGeometry: 10, "Geometry::Tri", "Mesh" {\n\t\tVertices: 7\n\t\tPolygonVertexIndex: 5\n\t}\n\tModel: 20, "Model::Tri", "Mesh" {\n\t}\n}\nConnections:  {\n\tC: "OO",10,20\n\tC: "OO",20,0\n}\n`);
    const failure = await runCodecTask({ ...decodeTask(file), format: "fbx" }).then(() => null, (e: Error) => e);
    expect(failure?.message).toMatch(/^fbx: the file is malformed/);
    expect(failure?.message).not.toMatch(/forEach|undefined|Cannot/);
  });
});

describe("USDA pre-scan", () => {
  /** A USDA whose layer doc is one string of `size` bytes, its first 64 KiB text and the rest sparse (zero bytes). */
  const hugeString = (size: number) => {
    const file = path.join(dir, "string.usda");
    writeFileSync(file, `#usda 1.0\n(\n    doc = """${"x".repeat(65_536)}`);
    truncateSync(file, size);
    const fd = openSync(file, "r+");
    writeSync(fd, '"""\n)\n', size - 6);
    closeSync(fd);
    return file;
  };

  it("refuses a 200 MB string after reading the first ~32 MiB of it, before the file is read whole", async () => {
    const file = hugeString(200e6);
    let read = 0;
    await expect(prescanFile(file, "usd", (n) => (read = n))).rejects.toThrow(`usda: the string starting at line 3 is longer than ${LIMITS.usdaStringBytes} bytes`);
    expect(read).toBeLessThanOrEqual(LIMITS.usdaStringBytes + 2 * 2 ** 20);
    // The first task of an import that reads the file (the scan for side files) runs it.
    await expect(runCodecTask({ kind: "scan", format: "usd", main: file })).rejects.toThrow(/longer than 33554432 bytes/);
  });

  it("measures strings, triple-quoted strings, asset paths and paths alike, whatever the chunk boundaries", () => {
    const text = `#usda 1.0 "not a string in a comment\n(\n    doc = """a "quoted" \\""" x"""\n)\ndef "A" { asset a = @12345@\n rel r = </a/b/c> string s = 'it\\'s' string e = "" }\n`;
    const bytes = new TextEncoder().encode(text);
    for (const [cap, ok] of [[17, true], [16, false], [100, true]] as const)
      for (const size of [1, 2, 5, bytes.length]) {
        const scan = new UsdaPrescan(cap);
        const run = () => { for (let at = 0; at < bytes.length; at += size) scan.push(bytes.subarray(at, at + size)); scan.end(); };
        if (ok) expect(run, `cap ${cap}, chunks of ${size}`).not.toThrow();
        else expect(run, `cap ${cap}, chunks of ${size}`).toThrow("the string starting at line 3 is longer than 16 bytes");
      }
    // The triple-quoted doc (17 bytes between its quotes, an escaped quote and a pair inside) is the longest; the asset path is 5, the path 6.
    expect(() => new UsdaPrescan(4).push(new TextEncoder().encode("#usda 1.0\nasset a = @12345@\n"))).toThrow("the asset path starting at line 2");
  });

  it("the parser reads long strings in runs and refuses one past the cap itself", () => {
    const long = "y".repeat(2 ** 20);
    expect(parseUsda(`#usda 1.0\n(\n    doc = "${long}\\n${long}"\n)\n`).metadata.doc).toBe(`${long}\n${long}`);
    const tooLong = "z".repeat(LIMITS.usdaStringBytes + 2);
    expect(() => parseUsda(`#usda 1.0\n(\n    doc = "${tooLong}\\n"\n)\n`)).toThrow(/a string longer than 33554432 characters at line 3/);
  });
});

describe("binary FBX outline", () => {
  const magic = Buffer.concat([Buffer.from("Kaydara FBX Binary  \0", "latin1"), Buffer.from([0x1a, 0x00])]);

  it("refuses a valid header followed by 600 MB of zeros before reading it, and passes a real file", async () => {
    const file = path.join(dir, "zeros.fbx");
    const version = Buffer.alloc(4);
    version.writeUInt32LE(7400);
    writeFileSync(file, Buffer.concat([magic, version]));
    truncateSync(file, 600e6);
    await expect(prescanFile(file, "fbx")).rejects.toThrow(/holds 599999960 bytes after its last node; an FBX footer takes at most 4096/);
    await expect(runCodecTask({ ...decodeTask(file), format: "fbx" })).rejects.toThrow(/after its last node/);
    const { encode } = await import("./formats");
    const { largeScene } = await import("../../tests/fixtures/formats/scene");
    const real = path.join(dir, "real.fbx");
    writeFileSync(real, (await encode("fbx", largeScene(1000), "real")).files[0].bytes);
    await expect(prescanFile(real, "fbx")).resolves.toBeUndefined();
  });
});
