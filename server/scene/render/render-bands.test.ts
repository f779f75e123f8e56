// Invariant: a frame drawn as horizontal bands (what the screenshot threads each draw) is the same
// image as the frame drawn whole: bands meet without a seam, with the same shadows, sky, dither,
// grid and labels. Rounding at band edges may move a handful of edge samples, nothing more.
import { describe, expect, it } from "vitest";
import { buildRenderInput } from "../render-view";
import { buildState, readmeCalls } from "../../../tests/fixtures/render/scenes";
import { drawFrameLabels, planFrame, renderBand, renderScene } from "./index";
import type { RenderInput, RenderOutput } from "./types";

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
});
