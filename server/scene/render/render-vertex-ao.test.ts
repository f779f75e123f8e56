// Invariant: occlusion taken per vertex (finely tessellated meshes) draws what evaluating it per
// 2x2 pixels draws, within two 8-bit levels, including where objects cut into each other (those
// triangles fall back to per-pixel; without that fallback they differ by 5); big faces never take
// it per vertex.
import { afterEach, describe, expect, it, vi } from "vitest";
import { meshBoxes } from "./bounds";
import { packLights } from "./lights";
import { occludersByMesh, vertexOcclusion } from "./occlusion";
import { DEFAULT_SKY, packSky } from "./sky";
import { groundQuad, lookAt, mesh, uvSphere } from "./test-helpers";
import type { RenderInput, RenderLight, RenderMesh } from "./types";

const sun: RenderLight = { type: "directional", direction: [-0.4, -1, -0.6], color: [1, 1, 1], intensity: 1.2 };
const occluders = (meshes: RenderMesh[]) => occludersByMesh(meshes, meshBoxes(meshes), packLights([sun]), packSky(DEFAULT_SKY, 1, [sun]));
/** A closed box of 12 triangles with outward normals per corner (big faces). */
const box = (c: number[], h: number): RenderMesh => {
  const p: number[] = [], n: number[] = [];
  for (let k = 0; k < 8; k++) {
    const s = [k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1];
    p.push(c[0] + s[0] * h, c[1] + s[1] * h, c[2] + s[2] * h);
    n.push(...s.map((v) => v / Math.sqrt(3)));
  }
  return { ...mesh(p, [0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5], [0.8, 0.3, 0.2, 1]), normals: new Float32Array(n) };
};

/** Spheres on the ground: two apart, a stack of three cutting into each other, a box touching the stack. */
function row(): RenderInput {
  const meshes: RenderMesh[] = [groundQuad(0, 20, [0.6, 0.6, 0.6, 1])];
  for (const [x, y] of [[-2.4, 0.5], [-1.2, 0.5], [0, 0.5], [0, 1.3], [0, 2.1]]) meshes.push(uvSphere([x, y, 0], 0.5, 24, 16, [0.3, 0.5, 0.8, 1]));
  meshes.push(box([1, 0.5, 0], 0.5));
  return { width: 480, height: 270, camera: lookAt([-0.5, 2, 4.5], [-0.3, 1, 0], 50), meshes, lights: [sun], dither: false };
}

afterEach(() => {
  vi.doUnmock("./occlusion");
  vi.resetModules();
});

describe("ambient occlusion per vertex", () => {
  it("is taken for fine spheres, not for a box's big faces or a mesh nothing occludes", () => {
    const input = row();
    const occ = occluders(input.meshes);
    const per = input.meshes.map((m, i) => (occ[i] ? vertexOcclusion(m, occ[i]!) : null));
    expect(per.slice(1, 6).every((v) => v !== null && v.length === (input.meshes[1].positions.length / 3) * 4)).toBe(true);
    expect(per[6]).toBeNull(); // the box
    expect(per[0]).toBeNull(); // the ground: two triangles
    // Some vertices of the spheres are dimmed, none brightened.
    const vis = Array.from(per[2]!).filter((_, k) => k % 4 === 0);
    expect(Math.min(...vis)).toBeLessThan(0.8);
    expect(Math.max(...vis)).toBeLessThanOrEqual(1);
  });

  it("is not taken for a mesh with one big triangle among small ones (its inside would lose the occlusion)", () => {
    const input = row();
    const ball = input.meshes[1];
    const n = ball.positions.length / 3;
    // The ball with a 1.2 m floor tile folded into the same mesh: small triangles on average, not all.
    const merged: RenderMesh = {
      ...ball,
      positions: Float32Array.from([...ball.positions, -0.6, 0, -0.6, 0.6, 0, -0.6, 0.6, 0, 0.6, -0.6, 0, 0.6]),
      normals: Float32Array.from([...ball.normals!, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0]),
      indices: Uint32Array.from([...ball.indices, n, n + 2, n + 1, n, n + 3, n + 2]),
    };
    const occ = occluders([merged, ...input.meshes.slice(2)]);
    expect(vertexOcclusion(ball, occluders(input.meshes)[1]!)).not.toBeNull();
    expect(vertexOcclusion(merged, occ[0]!)).toBeNull();
  });

  it("draws a mesh with a NaN vertex or normal like the per-pixel evaluation, without throwing", async () => {
    const input = row();
    const ball = input.meshes[2];
    const normals = Float32Array.from([...ball.normals!, 0, 1, 0]);
    normals.fill(NaN, 3 * 200, 3 * 201); // a vertex on the visible side
    input.meshes[2] = { ...ball, normals, positions: Float32Array.from([...ball.positions, NaN, NaN, NaN]) }; // and one no triangle uses
    expect(vertexOcclusion(input.meshes[2], occluders(input.meshes)[2]!)).not.toBeNull();
    const perVertex = (await import("./render")).renderScene(input);
    vi.resetModules();
    vi.doMock("./occlusion", async (original) => ({ ...(await original<typeof import("./occlusion")>()), vertexOcclusion: () => null }));
    const perPixel = (await import("./render")).renderScene(input);
    let max = 0;
    for (let i = 0; i < perPixel.data.length; i++) max = Math.max(max, Math.abs(perPixel.data[i] - perVertex.data[i]));
    expect(max).toBeLessThanOrEqual(2);
  });

  it("draws within two 8-bit levels of the per-pixel evaluation", async () => {
    const input = row();
    const perVertex = (await import("./render")).renderScene(input);
    vi.resetModules();
    vi.doMock("./occlusion", async (original) => ({ ...(await original<typeof import("./occlusion")>()), vertexOcclusion: () => null }));
    const perPixel = (await import("./render")).renderScene(input);
    let max = 0, differ = 0;
    for (let i = 0; i < perPixel.data.length; i++) {
      const d = Math.abs(perPixel.data[i] - perVertex.data[i]);
      max = Math.max(max, d);
      if (d) differ++;
    }
    expect(max).toBeLessThanOrEqual(2);
    // The spheres really are drawn differently (the test would pass trivially otherwise).
    expect(differ).toBeGreaterThan(100);
  });

  it("is worked out once for the material slots of one object, drawing what each part's own would", async () => {
    const { planFrame, renderBand } = await import("./render");
    // One fine sphere drawn as three slots (parts of object 1, sharing its vertex array), beside another.
    const whole = uvSphere([0, 0.5, 0], 0.5, 24, 16, [0.3, 0.5, 0.8, 1]);
    const n = whole.indices.length / 3, cut = [0, Math.floor(n / 3) * 3, Math.floor((2 * n) / 3) * 3, n * 3];
    const parts = [0, 1, 2].map((k): RenderMesh => ({ ...whole, indices: whole.indices.subarray(cut[k], cut[k + 1]), object: 1 }));
    const input: RenderInput = {
      width: 320, height: 180, camera: lookAt([-0.5, 1.5, 3], [0, 0.5, 0], 50), lights: [sun], dither: false,
      meshes: [groundQuad(0, 20, [0.6, 0.6, 0.6, 1]), { ...uvSphere([1.1, 0.5, 0], 0.5, 24, 16, [0.8, 0.5, 0.3, 1]), object: 2 }, ...parts],
    };
    const draw = (inp: RenderInput) => {
      const plan = planFrame(inp);
      const data = new Uint8ClampedArray(inp.width * inp.height * 4);
      renderBand(plan, 0, inp.height, data);
      return { plan, data };
    };
    const shared = draw(input);
    const ao = shared.plan.vertexAo.slice(2);
    expect(ao[0]).toBeInstanceOf(Float32Array);
    expect(ao[1]).toBe(ao[0]);
    expect(ao[2]).toBe(ao[0]);
    // Each part with a copy of the vertices works its own out: the same frame.
    const own = draw({ ...input, meshes: input.meshes.map((m, i) => (i < 2 ? m : { ...m, positions: m.positions.slice() })) });
    expect(own.plan.vertexAo[3]).not.toBe(own.plan.vertexAo[2]);
    expect(Buffer.from(own.data).equals(Buffer.from(shared.data))).toBe(true);
    // A part with the same vertices but normals of its own works out its own.
    const turned = draw({ ...input, meshes: input.meshes.map((m, i) => (i === 3 ? { ...m, normals: m.normals!.map((c) => -c) } : m)) });
    expect(turned.plan.vertexAo[3]).not.toBe(turned.plan.vertexAo[2]);
    expect(turned.plan.vertexAo[4]).toBe(turned.plan.vertexAo[2]);
  });
});
