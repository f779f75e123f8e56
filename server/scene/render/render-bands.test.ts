// Invariant: a frame drawn as horizontal bands (what the screenshot threads each draw) is the same
// image as the frame drawn whole: bands meet without a seam, with the same shadows, sky, dither,
// grid and labels. Rounding at band edges may move a handful of edge samples, nothing more.
import { describe, expect, it } from "vitest";
import { buildRenderInput } from "../render-view";
import { buildState, readmeCalls } from "../../../tests/fixtures/render/scenes";
import { drawFrameLabels, planFrame, renderBand, renderScene } from "./index";
import { lookAt, uvSphere } from "./test-helpers";
import type { RenderInput, RenderMesh, RenderOutput } from "./types";

function inBands(input: RenderInput, cuts: number[]): RenderOutput {
  const plan = planFrame(input);
  const out: RenderOutput = { width: plan.width, height: plan.height, data: new Uint8ClampedArray(plan.width * plan.height * 4) };
  const edges = [0, ...cuts, plan.height];
  // Out of order on purpose: a band must not depend on the ones drawn before it.
  for (let k = edges.length - 2; k >= 0; k--) renderBand(plan, edges[k], edges[k + 1] - edges[k], out.data.subarray(edges[k] * plan.width * 4));
  drawFrameLabels(out, input);
  return out;
}

function differingPixels(a: RenderOutput, b: RenderOutput): number {
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2]) n++;
  }
  return n;
}

describe("rendering in bands", () => {
  it("gives the README scene (shadows, sky, dither) as drawn whole", () => {
    const input = buildRenderInput(buildState(readmeCalls()), "unity", 320, 180);
    const whole = renderScene(input);
    const banded = inBands(input, [23, 90, 91, 150]);
    expect(differingPixels(whole, banded)).toBeLessThanOrEqual(whole.width * whole.height * 0.002);
  });

  it("keeps the grid, axes and labels whole across band edges", () => {
    const input = buildRenderInput(buildState(readmeCalls()), "unity", 320, 180, undefined, ["grid", "axes", "labels"]);
    const whole = renderScene(input);
    const banded = inBands(input, [45, 90, 135]);
    expect(differingPixels(whole, banded)).toBeLessThanOrEqual(whole.width * whole.height * 0.002);
    // The labels really are there: the frame differs from one without overlays.
    const plain = renderScene(buildRenderInput(buildState(readmeCalls()), "unity", 320, 180));
    expect(differingPixels(whole, plain)).toBeGreaterThan(500);
  });

  it("draws each mesh in every band its box reaches, skipping the others, as the frame drawn whole", () => {
    // Spheres in rows across the band edges, one mesh reaching behind the camera (all rows), and
    // one with no finite vertex (none).
    const meshes: RenderMesh[] = [];
    for (let i = 0; i < 30; i++) meshes.push(uvSphere([(i % 6) - 2.5, 0.5 + Math.floor(i / 6) * 0.7, -2], 0.4, 12, 8, [0.8, 0.3 + i * 0.02, 0.2, 1]));
    meshes.push({ positions: new Float32Array([-30, -0.5, 30, 30, -0.5, 30, 30, -0.5, -30, -30, -0.5, -30]), indices: new Uint32Array([0, 1, 2, 0, 2, 3]), color: [0.5, 0.5, 0.5, 1] });
    meshes.push({ positions: new Float32Array([NaN, 0, 0, 1, NaN, 0, 0, 1, NaN]), indices: new Uint32Array([0, 1, 2]), color: [1, 1, 1, 1] });
    const input: RenderInput = {
      width: 240, height: 160, camera: lookAt([0, 2, 4], [0, 1.2, -2], 50), meshes,
      lights: [{ type: "directional", direction: [-0.3, -1, -0.4], color: [1, 1, 1], intensity: 1.2 }],
    };
    const plan = planFrame(input);
    // The ground reaches behind the camera: every row. The NaN mesh: none.
    expect([plan.rows[60], plan.rows[61]]).toEqual([-Infinity, Infinity]);
    expect(plan.rows[62]).toBeGreaterThan(plan.rows[63]);
    // The spheres' rows are bounded and some lie wholly outside a 20-row band (so it skips them).
    expect(plan.rows[1] - plan.rows[0]).toBeLessThan(input.height / 2);
    const whole = renderScene(input);
    const banded = inBands(input, [20, 40, 60, 80, 100, 120, 140]);
    // Bands cut on even rows here, so not one pixel differs (a mesh skipped where it shows would).
    expect(differingPixels(whole, banded)).toBe(0);
  });
});
