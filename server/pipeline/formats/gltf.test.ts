// Invariant: a scene written as .glb and read back is the same scene (names, hierarchy, world
// transforms, geometry, PBR materials, light, camera, LINEAR keyframes) with no warnings, and the
// file is valid glTF 2.0 for the Khronos validator and for assimp.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateBytes } from "gltf-validator";
import { decodeGltf, encodeGltf } from "./gltf";
import { fixtureScene } from "../../../tests/fixtures/formats/scene";
import { expectRoundTrip } from "../../../tests/fixtures/formats/compare";
import { assimpInfo } from "../../../tests/fixtures/formats/assimp";

describe("glTF binary format", () => {
  it("round-trips the fixture scene losslessly and warns about nothing", async () => {
    const src = fixtureScene();
    const enc = await encodeGltf(src, "fixture");
    expect(enc.files.map((f) => f.name)).toEqual(["fixture.glb"]);
    expect(enc.warnings).toEqual([]);
    const dec = await decodeGltf(new Map([["fixture.glb", enc.files[0].bytes]]), "fixture.glb");
    expect(dec.warnings).toEqual([]);
    expectRoundTrip(src, dec.scene, { hierarchy: true, lights: true, cameras: true, animations: true, pbr: true });
    expect(dec.scene.nodes.map((n) => n.name)).toEqual(src.nodes.map((n) => n.name));
  });

  it("writes a file the Khronos validator accepts with zero errors", async () => {
    const enc = await encodeGltf(fixtureScene(), "fixture");
    const report = await validateBytes(enc.files[0].bytes);
    expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
    expect(report.issues.numErrors).toBe(0);
  });

  it("writes a file assimp can read", async (ctx) => {
    const enc = await encodeGltf(fixtureScene(), "fixture");
    const dir = mkdtempSync(join(tmpdir(), "kiln-gltf-"));
    writeFileSync(join(dir, "fixture.glb"), enc.files[0].bytes);
    const info = assimpInfo(join(dir, "fixture.glb"));
    if (info === null) return ctx.skip("assimp not installed (apt-get install -y assimp-utils)");
    expect(info.exitCode, info.output).toBe(0);
  });

  it("splits a second clip only when two animations drive the same node property", async () => {
    const src = fixtureScene();
    src.animations.push({ node: 1, times: [0, 3], scales: [[1, 1, 1], [2, 2, 2]] }, { node: 1, times: [0, 5], translations: [[0, 0, 0], [1, 1, 1]] });
    const dec = await decodeGltf(new Map([["a.glb", (await encodeGltf(src, "a")).files[0].bytes]]), "a.glb");
    expect(dec.scene.animations.map((a) => [a.times.length, Object.keys(a).sort().join(",")])).toEqual([
      [3, "node,rotations,times,translations"],
      [2, "node,scales,times"],
      [2, "node,times,translations"],
    ]);
  });
});
