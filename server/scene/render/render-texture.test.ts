// Invariant: a base colour texture shows on the surface where its UVs put it (glTF orientation:
// (0, 0) is the image's top-left, V down), moved by KHR_texture_transform as glTF implementations
// do, sRGB-decoded and multiplied by the material colour; meshes without one are drawn as before.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { pixel, quadZ, scene } from "./test-helpers";
import type { RenderImage, RenderInput, RenderMesh, RenderTexture, Rgba } from "./types";

const SIZE = 128;
const CAM_Z = 2;
/** Pixel of world point (x, y, 0) for the test camera (z = 2, 60° vertical, square image). */
const toPixel = (x: number, y: number): [number, number] => {
  const k = SIZE / 2 / (CAM_Z * Math.tan(Math.PI / 6));
  return [Math.floor(SIZE / 2 + x * k), Math.floor(SIZE / 2 - y * k)];
};
/** Pixel showing UV (u, v) of the quad [-1, 1]² whose top-left corner has UV (0, 0). */
const uvPixel = (u: number, v: number) => toPixel(-1 + 2 * u, 1 - 2 * v);

/** Quadrant colours of the test image (sRGB bytes), by [row][column]: top-left red, top-right green, bottom-left blue, bottom-right yellow. */
const QUADRANTS = [[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [255, 255, 0]]];
/** An 8x8 image of four 4x4 quadrants: a bilinear sample away from the quadrant borders is one pure colour. */
function quadrantImage(): RenderImage {
  const data = new Uint8Array(8 * 8 * 4);
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) data.set([...QUADRANTS[y >> 2][x >> 2], 255], (y * 8 + x) * 4);
  return { width: 8, height: 8, data };
}
const srgbToLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

function texturedQuad(texture: Partial<RenderTexture> = {}, color: Rgba = [1, 1, 1, 1]): RenderMesh {
  // quadZ's corners: (-1,-1), (1,-1), (1,1), (-1,1); glTF UVs put (0, 0) at the top-left one.
  const uv = new Float32Array([0, 1, 1, 1, 1, 0, 0, 0]);
  return quadZ(0, -1, -1, 1, 1, color, { texture: { image: "img", uv, ...texture } });
}
const view = (meshes: RenderMesh[], images?: Record<string, RenderImage>): RenderInput =>
  scene(meshes, { width: SIZE, height: SIZE, camera: { eye: [0, 0, CAM_Z], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60 }, images });

/** What a flat quad of the given sRGB colour looks like at pixel p (same lighting and view). */
const flatAt = (srgb: number[], p: [number, number]) => pixel(renderScene(view([quadZ(0, -1, -1, 1, 1, [...srgb.map((c) => srgbToLinear(c / 255)), 1] as Rgba)])), ...p);
const same = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.prototype.every.call(a, (v: number, i: number) => v === b[i]);
const near = (a: number[], b: number[], tol = 2) => a.slice(0, 3).every((c, i) => Math.abs(c - b[i]) <= tol);

describe("base colour textures", () => {
  it("shows the image upright: its top-left quadrant at the quad's top-left (V not flipped)", () => {
    const out = renderScene(view([texturedQuad()], { img: quadrantImage() }));
    for (const [row, col] of [[0, 0], [0, 1], [1, 0], [1, 1]]) {
      const p = uvPixel(0.25 + 0.5 * col, 0.25 + 0.5 * row);
      expect(pixel(out, ...p), `quadrant ${row},${col}`).toEqual(flatAt(QUADRANTS[row][col], p));
    }
  });

  it("decodes sRGB texels to linear before lighting, and multiplies by the material colour", () => {
    const grey = { width: 1, height: 1, data: new Uint8Array([188, 188, 188, 255]) };
    const p = uvPixel(0.5, 0.5);
    const out = renderScene(view([texturedQuad({}, [1, 0.5, 1, 1])], { img: grey }));
    const lin = srgbToLinear(188 / 255); // 0.5, not 0.737
    expect(pixel(out, ...p)).toEqual(pixel(renderScene(view([quadZ(0, -1, -1, 1, 1, [lin, lin * 0.5, lin, 1])])), ...p));
    // Read as linear (no decode) it would be far brighter.
    expect(pixel(out, ...p)[0]).toBeLessThan(pixel(renderScene(view([quadZ(0, -1, -1, 1, 1, [188 / 255, 94 / 255, 188 / 255, 1])])), ...p)[0] - 10);
  });

  it("filters bilinearly between texels (a smooth ramp, not steps)", () => {
    const ramp = { width: 2, height: 1, data: new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255]) };
    const out = renderScene(view([texturedQuad()], { img: ramp }));
    const row = uvPixel(0, 0.5)[1];
    const xs = [0.3, 0.4, 0.5, 0.6, 0.7].map((u) => pixel(out, uvPixel(u, 0.5)[0], row)[0]);
    for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThan(xs[i - 1] + 5);
  });

  // Quadrant (row, col) of the quad shows the image's quadrant given (probes at quadrant centres).
  it.each([
    { name: "offset [0.5, 0] shifts it by half (repeat wraps it)", t: { offset: [0.5, 0] }, shows: [[[0, 1], [0, 0]], [[1, 1], [1, 0]]] },
    { name: "offset [0, 0.5] shifts it down by half", t: { offset: [0, 0.5] }, shows: [[[1, 0], [1, 1]], [[0, 0], [0, 1]]] },
    // uv' = R·uv, R = [[cos, sin], [-sin, cos]]: (u, v) -> (v, -u), so quad (r, c) shows image (1 - c, r).
    { name: "rotation π/2 turns the UVs counter-clockwise in UV space", t: { rotation: Math.PI / 2 }, shows: [[[1, 0], [0, 0]], [[1, 1], [0, 1]]] },
  ])("$name", ({ t, shows }) => {
    const out = renderScene(view([texturedQuad(t as Partial<RenderTexture>)], { img: quadrantImage() }));
    for (const [row, col] of [[0, 0], [0, 1], [1, 0], [1, 1]]) {
      const p = uvPixel(0.25 + 0.5 * col, 0.25 + 0.5 * row);
      const [ir, ic] = shows[row][col];
      expect(pixel(out, ...p), `quad quadrant ${row},${col}`).toEqual(flatAt(QUADRANTS[ir][ic], p));
    }
  });

  it("applies scale, then rotation, then offset (uv' = T·R·S·uv)", () => {
    const t = { scale: [2, 1] as [number, number], rotation: Math.PI / 2, offset: [0.25, 0.5] as [number, number] };
    const out = renderScene(view([texturedQuad(t)], { img: quadrantImage() }));
    const wrap = (x: number) => x - Math.floor(x);
    for (let j = 0; j < 4; j++) {
      for (let i = 0; i < 4; i++) {
        const u = 0.125 + 0.25 * i, v = 0.125 + 0.25 * j;
        // T·R·S by hand: S = (2u, v); R = (v, -2u); T = (v + 0.25, -2u + 0.5).
        const su = wrap(v + 0.25), sv = wrap(-2 * u + 0.5);
        const p = uvPixel(u, v);
        const want = flatAt(QUADRANTS[Math.floor(sv * 2)][Math.floor(su * 2)], p);
        expect(near(pixel(out, ...p), want), `uv ${u},${v}: ${pixel(out, ...p)} vs ${want}`).toBe(true);
      }
    }
  });

  it("draws the flat colour when the image is missing, malformed or the UVs are too short", () => {
    const flat = renderScene(view([quadZ(0, -1, -1, 1, 1, [0.8, 0.3, 0.2, 1])]));
    const bad: [Partial<RenderTexture>, Record<string, RenderImage> | undefined][] = [
      [{}, undefined],
      [{ image: "other" }, { img: quadrantImage() }],
      [{}, { img: { width: 8, height: 8, data: new Uint8Array(10) } }],
      [{}, { img: { width: 0, height: 8, data: new Uint8Array(0) } }],
      [{ uv: new Float32Array(3) }, { img: quadrantImage() }],
    ];
    for (const [t, images] of bad) expect(same(renderScene(view([texturedQuad(t, [0.8, 0.3, 0.2, 1])], images)).data, flat.data)).toBe(true);
  });

  it("survives NaN and huge UVs (no throw, no out-of-range reads)", () => {
    const uv = new Float32Array([NaN, 1e30, -1e30, Infinity, 1, 0, 0, -0.0000001]);
    const out = renderScene(view([texturedQuad({ uv, rotation: NaN, scale: [Infinity, 1] })], { img: quadrantImage() }));
    expect(out.data.length).toBe(SIZE * SIZE * 4);
  });

  it("leaves untextured meshes exactly as they were, beside a textured one", () => {
    const other = quadZ(-1, 1.2, -1, 2.2, 1, [0.2, 0.6, 0.3, 1]);
    const alone = renderScene(view([other]));
    const both = renderScene(view([other, quadZ(0, -2.2, -1, -1.2, 1, [1, 1, 1, 1], { texture: { image: "img", uv: new Float32Array([0, 1, 1, 1, 1, 0, 0, 0]) } })], { img: quadrantImage() }));
    const [x0] = toPixel(1.2, 0), [x1] = toPixel(2.2, 0);
    for (let y = 0; y < SIZE; y += 3) for (let x = x0 + 2; x < Math.min(SIZE, x1 - 1); x++) expect(pixel(both, x, y)).toEqual(pixel(alone, x, y));
  });

  it("interpolates UVs perspective-correctly on a slanted quad", () => {
    // A floor from z = 1 to z = -9 whose V runs 0.75 (near) .. 0.25 (far) over a 1x2 image, red over
    // blue: red turns to blue at V = 0.5, half-way in depth (z = -4), which projects far above
    // half-way down the floor on screen.
    const floor: RenderMesh = {
      positions: new Float32Array([-1, -1, 1, 1, -1, 1, 1, -1, -9, -1, -1, -9]), indices: new Uint32Array([0, 1, 2, 0, 2, 3]),
      color: [1, 1, 1, 1], roughness: 1, texture: { image: "img", uv: new Float32Array([0, 0.75, 1, 0.75, 1, 0.25, 0, 0.25]) },
    };
    const redOverBlue = { width: 1, height: 2, data: new Uint8Array([255, 0, 0, 255, 0, 0, 255, 255]) };
    const out = renderScene({
      ...view([floor], { img: redOverBlue }),
      camera: { eye: [0, 0, CAM_Z], forward: [0, -0.3, -1], up: [0, 1, 0], fovYDeg: 60 },
      lights: [{ type: "directional", direction: [0, -1, 0], color: [1, 1, 1], intensity: 1 }],
    });
    const x = SIZE / 2, bg = pixel(out, x, 0);
    const rows = [...Array(SIZE).keys()].filter((y) => !near(pixel(out, x, y), bg, 0));
    const top = rows[0], bottom = rows[rows.length - 1];
    expect(pixel(out, x, top + 1)[0]).toBeGreaterThan(pixel(out, x, top + 1)[2] + 100); // far: red
    expect(pixel(out, x, bottom - 1)[2]).toBeGreaterThan(pixel(out, x, bottom - 1)[0] + 100); // near: blue
    const turn = rows.find((y) => pixel(out, x, y)[2] > pixel(out, x, y)[0])!;
    // Projected, z = -4 lies ~10 % of the floor's screen height below its far edge; interpolating
    // UVs linearly in screen space (not perspective-correct) would put the turn at 50 %.
    expect((turn - top) / (bottom - top)).toBeGreaterThan(0.06);
    expect((turn - top) / (bottom - top)).toBeLessThan(0.15);
  });
});
