// Invariant: the OBJ reader's byte-level fast paths read every line as the text rules do (blanks
// are JavaScript's \s, numbers are Number(token), indices parseInt(token)): line endings, blanks,
// number syntax and corner forms change nothing, and whatever the fast paths cannot read exactly
// (Unicode blanks, long numbers, unusual corners) still gives the same result or the same error.
import { describe, expect, it } from "vitest";
import { decodeObj } from "./obj-read";
import type { DecodeResult } from "./interchange";

const read = (...lines: string[]) => decodeObj(new Map([["a.obj", new TextEncoder().encode(lines.join("\n"))]]), "a.obj");
const mesh = (r: DecodeResult, i = 0) => r.scene.meshes[i];
const f32 = (values: number[]) => Array.from(Float32Array.from(values));

describe("OBJ reader", () => {
  it("reads CRLF, tabs, vertical tabs and trailing blanks like single spaces", async () => {
    const plain = await read("o A", "v 1 2 3", "v 4 5 6", "v 7 8 9", "vn 0 0 1", "f 1//1 2//1 3//1");
    const messy = await decodeObj(new Map([["a.obj", new TextEncoder().encode("o A\r\n\tv\t1 \t2\v3 \r\n  v 4 5 6\r\nv 7 8 9\f\r\nvn\t0\t0\t1\r\n\r\n  \t\r\nf 1//1\t2//1  3//1\r\n")]]), "a.obj");
    expect(messy).toEqual(plain);
    expect(Array.from(mesh(plain).positions)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Array.from(mesh(plain).normals)).toEqual([0, 0, 1, 0, 0, 1, 0, 0, 1]);
  });

  it("reads exponents, signs, negative zero and numbers past 15 digits as Number does", async () => {
    const tokens = ["1e-7", "1.5E+3", "-0", "+.5", "-2.5e-1", "5.", "0.12345678901234567", "12345678901234567890", "1e-30"];
    const r = await read(`v ${tokens.slice(0, 3).join(" ")}`, `v ${tokens.slice(3, 6).join(" ")}`, `v ${tokens.slice(6).join(" ")}`, "f 1 2 3");
    const positions = Array.from(mesh(r).positions);
    expect(positions).toEqual(f32(tokens.map(Number)));
    expect(Object.is(positions[2], -0)).toBe(true);
  });

  it("splits on Unicode blanks too, through the text path", async () => {
    const r = await read("v 1\u00a02\u20033", "v 4 5 6", "v 7 8 9", "f 1 2 3");
    expect(Array.from(mesh(r).positions).slice(0, 3)).toEqual([1, 2, 3]);
  });

  it("takes 4-number vertices as positions and reads sRGB vertex colours from 6 numbers on", async () => {
    const plain = await read("v 1 2 3 1", "v 0 0 0", "v 0 1 0", "f 1 2 3");
    expect(mesh(plain).colors).toBeUndefined();
    const r = await read("v 1 2 3 1 0.5 0", "v 0 0 0", "v 0 1 0", "f 1 2 3");
    expect(Array.from(mesh(r).positions).slice(0, 3)).toEqual([1, 2, 3]);
    // Vertices without a colour are white; 0.5 sRGB is 0.214 linear, as Blender reads it.
    expect(Array.from(mesh(r).colors!).map((c) => +c.toFixed(4))).toEqual([1, 0.214, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it("counts negative indices back from the latest vertex and normal", async () => {
    const r = await read("v 0 0 0", "v 1 0 0", "v 0 1 0", "vn 0 0 1", "vn 0 1 0", "f -3//-1 -2//-1 -1//-1");
    expect(Array.from(mesh(r).indices)).toEqual([0, 1, 2]);
    expect(Array.from(mesh(r).normals)).toEqual([0, 1, 0, 0, 1, 0, 0, 1, 0]);
  });

  it("reads v/t/n and v//n corners' normals and computes normals when v/t corners have none", async () => {
    const vertices = ["v 0 0 0", "v 1 0 0", "v 0 1 0", "vn 0 0 -1", "vt 0 0", "vt 0.25 1"];
    const full = await read(...vertices, "f 1/2/1 2/1/1 3/1/1");
    const noTexture = await read(...vertices, "f 1//1 2//1 3//1");
    expect(Array.from(mesh(full).normals)).toEqual([0, 0, -1, 0, 0, -1, 0, 0, -1]);
    expect(Array.from(mesh(noTexture).normals)).toEqual(Array.from(mesh(full).normals));
    // V flips back to glTF's top-left origin.
    expect(Array.from(mesh(full).uvs![0])).toEqual([0.25, 0, 0, 1, 0, 1]);
    expect(mesh(noTexture).uvs).toBeUndefined();
    const none = await read(...vertices, "o N", "f 1/1 2/1 3/1");
    expect(none.warnings).toEqual(['obj: object "N" had faces without normals; smooth normals computed']);
    expect(Array.from(mesh(none).normals)).toEqual([0, 0, 1, 0, 0, 1, 0, 0, 1]);
  });

  it("reads texture corners by the same rules on the fast and the text path", async () => {
    const vertices = ["v 0 0 0", "v 1 0 0", "v 0 1 0", "vt 0 0", "vt 1 0", "vt 0 1", "vn 0 0 1"];
    const fast = await read(...vertices, "f 1/1/1 2/2/1 3/-1/1");
    const text = await read(...vertices, "f 1/1/1 2/2/1 3/-1/1\u00a0");
    expect(text).toEqual(fast);
    expect(Array.from(mesh(fast).uvs![0])).toEqual([0, 1, 1, 1, 0, 0]);
    const missing = await read(...vertices, "f 1/9/1 2/2/1 3/3/1");
    expect(missing.warnings).toContain("obj: face corners refer to texture coordinates that do not exist; read as (0, 0)");
  });

  it("keeps a vertex shared by corners with the same normal and splits it for another normal", async () => {
    const r = await read("v 0 0 0", "v 1 0 0", "v 0 1 0", "v 1 1 0", "vn 0 0 1", "vn 1 0 0", "f 1//1 2//1 3//1", "f 2//1 4//1 3//2");
    expect(Array.from(mesh(r).indices)).toEqual([0, 1, 2, 1, 3, 4]);
    expect(mesh(r).positions.length / 3).toBe(5);
  });

  it("reads unusual corners by parseInt's rules, as the text path does", async () => {
    const r = await read("v 0 0 0", "v 1 0 0", "v 0 1 0", "vn 0 0 1", "vn 0 1 0", "f +1//2 2x//2 003/1/2/9");
    expect(Array.from(mesh(r).indices)).toEqual([0, 1, 2]);
    expect(Array.from(mesh(r).normals)).toEqual([0, 1, 0, 0, 1, 0, 0, 1, 0]);
  });

  it("fails on a corner that references no vertex", async () => {
    const vertices = ["v 0 0 0", "v 1 0 0", "v 0 1 0"];
    await expect(read(...vertices, "f 1 2 x")).rejects.toThrow('obj: face corner "x" references a missing vertex');
    await expect(read(...vertices, "f 1 2 4")).rejects.toThrow('obj: face corner "4" references a missing vertex');
    await expect(read(...vertices, "f 0//1 1 2")).rejects.toThrow('obj: face corner "0//1" references a missing vertex');
    await expect(read(...vertices, "f -4 1 2")).rejects.toThrow('obj: face corner "-4" references a missing vertex');
    await expect(read(...vertices, "f")).rejects.toThrow('obj: face corner "" references a missing vertex');
  });

  it("names objects after groups only in files without o statements", async () => {
    const faces = ["v 0 0 0", "v 1 0 0", "v 0 1 0", "vn 0 0 1", "f 1//1 2//1 3//1"];
    const groups = await read("g First", ...faces, "g Second", "f 3//1 2//1 1//1");
    expect(groups.scene.nodes.map((n) => n.name)).toEqual(["First", "Second"]);
    const both = await read("o Only", "g First", ...faces, "g Second", "f 3//1 2//1 1//1");
    expect(both.scene.nodes.map((n) => n.name)).toEqual(["Only"]);
    expect(both.warnings).toEqual(["obj: groups (g) merged into their objects"]);
  });

  it("reads UTF-8 names and skips comments and smoothing groups", async () => {
    const r = await read("# Würfel", "o Würfel ✓", "v 0 0 0", "v 1 0 0", "v 0 1 0", "vt 0 0", "vn 0 0 1", "s 1", "f 1/1/1 2/1/1 3/1/1");
    expect(r.scene.nodes.map((n) => n.name)).toEqual(["Würfel ✓"]);
    expect(r.warnings).toEqual([]);
  });
});
