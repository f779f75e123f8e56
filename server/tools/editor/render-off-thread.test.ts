// Invariant: a screenshot drawn by the worker threads (a big frame split between two of them) is
// the frame renderScene draws, labels included, and a frame that throws fails alone.
import { readFileSync } from "node:fs";
import { PNG } from "pngjs";
import { afterEach, describe, expect, it } from "vitest";
import { buildRenderInput } from "../../scene/render-view";
import { renderScene } from "../../scene/render";
import { buildState, readmeCalls } from "../../../tests/fixtures/render/scenes";
import { closeRenderWorkers, renderPngOffThread, sharedInput } from "./render-off-thread";
import { decodeTexture } from "./texture-images";

const GRID = readFileSync("tests/fixtures/assets/09_texture_transform/09_tiny_grid.png");

const differing = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  return n;
};

describe("rendering off the event loop", () => {
  afterEach(async () => {
    delete process.env.KILN_RENDER_THREADS;
    await closeRenderWorkers();
  });

  it.each([["two threads", "2"], ["one thread", "1"]])("gives renderScene's frame with %s", async (_, threads) => {
    process.env.KILN_RENDER_THREADS = threads;
    const input = buildRenderInput(buildState(readmeCalls()), "unity", 960, 540, undefined, ["grid", "axes", "labels"]);
    const [shot, whole] = [await renderPngOffThread(input), renderScene(input)];
    const png = PNG.sync.read(shot.png);
    expect([png.width, png.height]).toEqual([960, 540]);
    expect(differing(png.data, whole.data)).toBeLessThanOrEqual(50); // band edges may round a few samples differently
  });

  it.each([["two threads", "2"], ["one thread", "1"]])("decodes textures on the worker and draws them as renderScene does, with %s", async (_, threads) => {
    process.env.KILN_RENDER_THREADS = threads;
    const base = buildRenderInput(buildState(readmeCalls()), "unity", 960, 540);
    // A 4 m textured wall behind the box, its UVs repeating the grid image 3 times.
    const wall = {
      positions: new Float32Array([-2, 0, 2, 2, 0, 2, 2, 4, 2, -2, 4, 2]), indices: new Uint32Array([0, 2, 1, 0, 3, 2]), color: [1, 1, 1, 1] as [number, number, number, number],
      texture: { image: "image/grid", uv: new Float32Array([0, 3, 3, 3, 3, 0, 0, 0]), rotation: 0.3 },
    };
    const input = { ...base, meshes: [...base.meshes, wall] };
    const shot = PNG.sync.read((await renderPngOffThread(input, [{ id: "image/grid", mimeType: "image/png", data: GRID.toString("base64") }])).png);
    const whole = renderScene({ ...input, images: { "image/grid": decodeTexture(GRID, "image/png")! } });
    expect(differing(shot.data, whole.data)).toBeLessThanOrEqual(50);
    expect(differing(shot.data, renderScene(input).data)).toBeGreaterThan(10_000); // the flat wall would differ
  });

  it("copies an array several meshes share into shared memory once, keeping it shared", () => {
    const base = buildRenderInput(buildState(readmeCalls()), "unity", 320, 180);
    const [first, second] = base.meshes;
    const slots = [first, { ...first, indices: first.indices.slice(0, 3) }, second];
    const posted = sharedInput({ ...base, meshes: slots });
    expect(posted.meshes[0].positions.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(posted.meshes[1].positions).toBe(posted.meshes[0].positions); // the renderer shares per-vertex work by it
    expect(posted.meshes[1].normals).toBe(posted.meshes[0].normals);
    expect(posted.meshes[1].indices).not.toBe(posted.meshes[0].indices);
    expect(posted.meshes[2].positions).not.toBe(posted.meshes[0].positions);
    expect(Array.from(posted.meshes[1].indices)).toEqual([...first.indices.slice(0, 3)]);
  });

  it("fails a frame with a bad size, and draws the next one", async () => {
    const input = buildRenderInput(buildState(readmeCalls()), "unity", 960, 540);
    await expect(renderPngOffThread({ ...input, width: 0.5 })).rejects.toThrow(/width\/height/);
    expect((await renderPngOffThread(input)).png.length).toBeGreaterThan(1000);
  });
});
