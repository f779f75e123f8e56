// Invariant: nearby objects dim a surface's sky light (ambient occlusion) and send back their own
// colour of the light they get (one bounce): ground beside a sunlit red cube is darker and redder
// than open ground; flat or huge meshes and an object's own faces never occlude.
import { describe, expect, it } from "vitest";
import { buildRenderInput } from "../render-view";
import { buildState, readmeCalls } from "../../../tests/fixtures/render/scenes";
import { renderScene } from "./index";
import { meshBoxes } from "./bounds";
import { packLights } from "./lights";
import { OCC_STRIDE, ambientVisibility, occludersAt, occludersByMesh, type Occluders } from "./occlusion";
import { DEFAULT_SKY, packSky } from "./sky";
import { groundQuad, mesh, pixel } from "./test-helpers";
import type { RenderLight, RenderMesh } from "./types";

/** An axis-aligned box mesh (corners only: occlusion reads the bounds, not the faces). */
const box = (x0: number, y0: number, z0: number, x1: number, y1: number, z1: number, color: [number, number, number, number] = [1, 0, 0, 1]): RenderMesh =>
  mesh([x0, y0, z0, x1, y0, z0, x1, y1, z0, x0, y1, z0, x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1], [0, 1, 2], color);
const sun: RenderLight = { type: "directional", direction: [-1, -1, 0], color: [1, 1, 1], intensity: 1 };
const occluders = (meshes: RenderMesh[], lights: RenderLight[] = [sun]) => occludersByMesh(meshes, meshBoxes(meshes), packLights(lights), packSky(DEFAULT_SKY, 1, lights));
const bounce = new Float64Array(3);
/** Visibility at p with normal n, through the grid as the shader looks it up. */
const visAt = (g: Occluders | null, p: number[], n: number[]) => ambientVisibility(occludersAt(g!, p[0], p[1], p[2]), p[0], p[1], p[2], n[0], n[1], n[2], bounce);

describe("ambient occlusion and bounce", () => {
  it("dims a ground point beside an object, less with distance, not at all beyond its reach", () => {
    const [forGround] = occluders([groundQuad(0, 20, [0.8, 0.8, 0.8, 1]), box(-0.5, 0, -0.5, 0.5, 1, 0.5)]);
    const vis = (x: number) => visAt(forGround, [x, 0, 0], [0, 1, 0]);
    expect(vis(0.6)).toBeLessThan(0.75);
    expect(vis(0.6)).toBeLessThan(vis(1.2));
    expect(vis(1.2)).toBeLessThan(1);
    expect(vis(5)).toBe(1);
  });

  it("lets nothing occlude a surface that faces away from the object", () => {
    const [forGround] = occluders([groundQuad(0, 20, [0.8, 0.8, 0.8, 1]), box(-0.5, 0, -0.5, 0.5, 1, 0.5)]);
    expect(visAt(forGround, [0.6, 0, 0], [1, 0, 0])).toBe(1); // normal +x, cube at -x
  });

  it("bounces the object's colour of the sunlight from the faces the point sees, only where they are lit", () => {
    const [forGround] = occluders([groundQuad(0, 20, [0.8, 0.8, 0.8, 1]), box(-0.5, 0, -0.5, 0.5, 1, 0.5)]);
    // The sun shines towards -x (it comes from +x): the cube's +x face is lit, its -x face is not.
    visAt(forGround, [0.6, 0, 0], [0, 1, 0]);
    const lit = [...bounce];
    visAt(forGround, [-0.6, 0, 0], [0, 1, 0]);
    const unlit = [...bounce];
    expect(lit[0]).toBeGreaterThan(unlit[0] * 2);
    expect(lit[1]).toBe(0); // a pure red cube sends back no green
    expect(unlit[0]).toBeGreaterThan(0); // its share of the sky light still comes back red
  });

  it("changes the bounce smoothly where a ground point comes to see another face (no edge along a face's plane)", () => {
    // A box lit differently on its +x face (by the sun) and its +z face (not): a point walking along
    // x = 0.8 on the ground crosses the plane z = 0.5 of the +z face and starts to see it.
    const [forGround] = occluders([groundQuad(0, 20, [0.8, 0.8, 0.8, 1]), box(-0.5, 0, -0.5, 0.5, 1, 0.5, [1, 1, 1, 1])]);
    const red = (z: number) => (visAt(forGround, [0.8, 0, z], [0, 1, 0]), bounce[0]);
    const across = Math.abs(red(0.501) - red(0.499));
    // Across the plane it changes by no more than anywhere else over 2 mm (it jumped by 0.029).
    expect(across).toBeLessThan(0.002);
    // And the lit face still sends more light than the unlit one: beside +x more than beside +z.
    expect(red(0)).toBeGreaterThan((visAt(forGround, [0, 0, 0.8], [0, 1, 0]), bounce[0]));
  });

  it("leaves out flat and huge meshes and the mesh itself", () => {
    const lists = occluders([groundQuad(0, 20, [0.8, 0.8, 0.8, 1]), box(-100, 0, -100, 100, 100, 100), box(3, 0, 0, 4, 1, 1)]);
    expect(occludersAt(lists[0]!, 3.5, 0, 0.5).length).toBe(OCC_STRIDE); // only the small box
    expect(lists[2]).toBeNull(); // nothing occludes the small box: the plane is flat, the big box huge
  });

  it("looks a point up among the spheres that reach it only, with the same result as all of them", () => {
    const balls: RenderMesh[] = [];
    for (let i = 0; i < 100; i++) balls.push(box((i % 10) * 1.2, 0, Math.floor(i / 10) * 1.2, (i % 10) * 1.2 + 1, 1, Math.floor(i / 10) * 1.2 + 1));
    const [forGround] = occluders([groundQuad(0, 20, [0.8, 0.8, 0.8, 1]), ...balls]);
    // Every sphere once, from every cell, for the brute-force answer.
    const seen = new Set<string>(), flat: number[] = [];
    for (const c of forGround!.cells) for (let k = 0; k < c.length; k += OCC_STRIDE) if (!seen.has(c.slice(k, k + 3).join())) { seen.add(c.slice(k, k + 3).join()); flat.push(...c.slice(k, k + OCC_STRIDE)); }
    expect(seen.size).toBe(100);
    const spheres = new Float64Array(flat);
    for (const p of [[5.3, 0, 5.9], [0.1, 0, 11.5], [-3, 0, -3], [11.1, 0, 0.2]]) {
      const cell = occludersAt(forGround!, p[0], p[1], p[2]);
      expect(cell.length).toBeLessThan(40 * OCC_STRIDE);
      const brute = ambientVisibility(spheres, p[0], p[1], p[2], 0, 1, 0, bounce);
      expect(ambientVisibility(cell, p[0], p[1], p[2], 0, 1, 0, bounce)).toBeCloseTo(brute, 12);
    }
  });

  it("darkens and reddens the ground beside the README cube in a render", () => {
    const input = { ...buildRenderInput(buildState(readmeCalls()), "unity", 480, 270), shadows: false, dither: false };
    const out = renderScene(input);
    // The cube's base spans about x 226..254 at row 163; open ground on the same row further out.
    const beside = pixel(out, 258, 163), open = pixel(out, 330, 163);
    expect(beside[1]).toBeLessThan(open[1]); // less sky light
    expect(beside[0] - beside[1]).toBeGreaterThan(open[0] - open[1]); // red bounce
  });
});
