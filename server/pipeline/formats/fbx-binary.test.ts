// Invariant: the binary FBX codec reads back exactly what it writes (every property type, nested
// nodes, compressed and raw arrays, 32- and 64-bit offsets), lays files out byte for byte as the
// FBX SDK-style exporter does, and refuses damaged files with an error instead of garbage.
import { describe, expect, it } from "vitest";
import { encodeFbx } from "./fbx";
import { isBinaryFbx, readFbxBinary, stringProperty, text, writeFbxBinary, type FbxDocument } from "./fbx-binary";
import { fixtureScene } from "../../../tests/fixtures/formats/scene";

function sample(version: number): FbxDocument {
  const big = Float64Array.from({ length: 1000 }, (_, k) => k % 10);
  return {
    version,
    nodes: [
      {
        name: "Scalars",
        properties: [
          { type: "Y", value: -12345 }, { type: "C", value: true }, { type: "I", value: -2_000_000_000 },
          { type: "F", value: Math.fround(1.5e-7) }, { type: "D", value: Math.PI }, { type: "L", value: -(2n ** 62n) - 7n },
          stringProperty("Cube\0\u0001Model é"), { type: "R", value: Uint8Array.of(0, 255, 7) },
        ],
        children: [{ name: "Empty", properties: [], children: [] }, { name: "Last", properties: [], children: [] }],
      },
      {
        name: "Arrays",
        properties: [
          { type: "b", value: Uint8Array.of(1, 0, 1) }, { type: "c", value: Uint8Array.of(7, 8) }, { type: "i", value: Int32Array.of(0, 1, -3) },
          { type: "l", value: BigInt64Array.of(1n, -1n) }, { type: "f", value: Float32Array.of(0.25, -8) },
          { type: "d", value: big }, { type: "i", value: new Int32Array(0) },
        ],
        children: [{ name: "AnimationStack", properties: [{ type: "I", value: 1 }], children: [] }],
      },
    ],
  };
}

describe("binary FBX codec", () => {
  it.each([7400, 7500])("reads back every property type it writes (version %i)", (version) => {
    const doc = sample(version);
    const bytes = writeFbxBinary(doc);
    expect(isBinaryFbx(bytes)).toBe(true);
    const back = readFbxBinary(bytes);
    expect(back).toEqual(doc);
    expect(text(back.nodes[0].properties[6])).toBe("Cube\0\u0001Model é");
  });

  it("compresses big arrays and leaves small ones raw", () => {
    const bytes = writeFbxBinary(sample(7400));
    expect(bytes.length).toBeLessThan(8000); // the 1000 doubles alone are 8000 bytes raw
    const at = Buffer.from(bytes).indexOf(Buffer.from("Arrays", "latin1")) + "Arrays".length;
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(String.fromCharCode(bytes[at])).toBe("b");
    expect(view.getUint32(at + 5, true)).toBe(0); // bool array of 3: encoding raw
  });

  it("rewrites an exporter-written file without compressed arrays byte for byte", async () => {
    // No meshes: every array stays under the compression threshold, so the bytes must match.
    const scene = fixtureScene();
    scene.nodes.forEach((n) => delete n.mesh);
    scene.meshes = [];
    const original = (await encodeFbx(scene, "x")).files[0].bytes;
    expect(Buffer.from(writeFbxBinary(readFbxBinary(original))).equals(Buffer.from(original))).toBe(true);
  });

  it("refuses arrays that inflate beyond their declared size, or claim more than the file may inflate to, before allocating them", () => {
    const doc: FbxDocument = { version: 7400, nodes: [{ name: "Bomb", properties: [{ type: "i", value: new Int32Array(1 << 20) }], children: [] }] };
    const bytes = writeFbxBinary(doc);
    expect(bytes.length).toBeLessThan(40_000); // 4 MiB of zeros deflate to a few KB
    const count = Buffer.from(bytes).indexOf(Buffer.from("Bomb", "latin1")) + "Bomb".length + 1;
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    view.setUint32(count, 10, true);
    expect(() => readFbxBinary(bytes)).toThrow(/array does not inflate to its 40 bytes/);
    view.setUint32(count, 2 ** 30, true); // 4 GiB of int32
    expect(() => readFbxBinary(bytes)).toThrow(/arrays declare 4294967296 bytes .* more than the \d+ a file of \d+ bytes may inflate to/);
    view.setUint32(count, 2 ** 29 / 4, true); // 512 MiB of int32 from a few KB: beyond 64 times the file plus 64 MiB
    expect(() => readFbxBinary(bytes)).toThrow(/arrays declare 536870912 bytes/);
    view.setUint32(count, 2 ** 24 / 4, true); // 16 MiB: within the 64 MiB any file may inflate to, so it is inflated and found short
    expect(() => readFbxBinary(bytes)).toThrow(/array of 4194304 holds 4194304 bytes/);
  });

  it("refuses nesting deeper than 256 levels", () => {
    let deep = { name: "Leaf", properties: [], children: [] } as FbxDocument["nodes"][number];
    for (let k = 0; k < 300; k++) deep = { name: "N", properties: [], children: [deep] };
    expect(() => readFbxBinary(writeFbxBinary({ version: 7400, nodes: [deep] }))).toThrow(/nested more than 256 deep/);
  });

  it("refuses damaged files with a clear error", () => {
    const bytes = writeFbxBinary(sample(7400));
    expect(() => readFbxBinary(new TextEncoder().encode("; FBX 7.4.0 project file"))).toThrow("not a binary FBX file");
    expect(() => readFbxBinary(bytes.subarray(0, 200))).toThrow(/corrupt file at byte \d+/);
    const broken = bytes.slice();
    const at = Buffer.from(broken).indexOf(Buffer.from("Arrays", "latin1")) + "Arrays".length;
    broken[at] = "Q".charCodeAt(0);
    expect(() => readFbxBinary(broken)).toThrow(/unknown property type "Q"/);
    // A node claiming 20 million properties is refused before any is read.
    const claims = bytes.slice();
    new DataView(claims.buffer).setUint32(27 + 4, 20_000_000, true); // first node: end offset, then property count
    expect(() => readFbxBinary(claims)).toThrow(/more than 4000000 nodes and properties/);
  });
});
