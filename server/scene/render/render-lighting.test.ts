// Invariant: directional light depends only on the angle, point/spot light fades smoothly to zero at
// its range (spot also outside its cone), double-sided back faces are lit as if their normal faced
// the camera, and metallic/roughness change the look the way the GGX model says.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { BG, mesh, pixel, quadZ, scene, srgbOf } from "./test-helpers";
import type { RenderLight, Vec3 } from "./types";

const GREY = [0.8, 0.8, 0.8, 1] as [number, number, number, number];
const quad = () => quadZ(0, -1, -1, 1, 1, GREY);
const centre = (lights: RenderLight[]) => pixel(renderScene(scene([quad()], { lights })), 32, 24)[0];
const dir = (direction: Vec3): RenderLight => ({ type: "directional", direction, color: [1, 1, 1], intensity: 1 });
const point = (z: number, range: number, intensity = 1): RenderLight => ({ type: "point", position: [0, 0, z], color: [1, 1, 1], intensity, range });

describe("lighting", () => {
  it("makes a face turned away from a directional light darker than one facing it", () => {
    const facing = centre([dir([0, 0, -1])]);
    const oblique = centre([dir([0.7, 0, -0.7])]);
    const away = centre([dir([0, 0, 1])]);
    const ambientOnly = centre([]);
    expect(facing).toBeGreaterThan(oblique);
    expect(oblique).toBeGreaterThan(away);
    expect(away).toBe(ambientOnly);
  });

  it("lights the sides of one mesh differently according to their normals", () => {
    // A V-shaped valley opening towards the camera: one face towards the light, one away.
    const left = mesh([-1, -1, 1, 0, -1, 0, 0, 1, 0, -1, 1, 1], [0, 1, 2, 0, 2, 3], GREY); // normal (+x,+z)
    const right = mesh([0, -1, 0, 1, -1, 1, 1, 1, 1, 0, 1, 0], [0, 1, 2, 0, 2, 3], GREY); // normal (-x,+z)
    const out = renderScene(scene([left, right], { lights: [dir([-1, 0, 0])] })); // light travels -x: hits the left face
    expect(pixel(out, 26, 24)[0]).toBeGreaterThan(pixel(out, 38, 24)[0]);
  });

  it.each([
    { name: "just beyond its range", z: 3, range: 2.9 },
    { name: "far beyond its range", z: 50, range: 10 },
  ])("gets nothing from a point light $name", ({ z, range }) => {
    expect(centre([point(z, range, 5)])).toBe(centre([]));
  });

  it("gets less light from a point light the farther it is, within its range", () => {
    const levels = [0.5, 1.5, 3, 4.5].map((z) => centre([point(z, 5)]));
    for (let i = 1; i < levels.length; i++) expect(levels[i]).toBeLessThan(levels[i - 1]);
    expect(levels[3]).toBeGreaterThan(centre([]));
  });

  it("lights inside a spot light's cone and not outside it", () => {
    const spot: RenderLight = { type: "spot", position: [0, 0, 2], direction: [0, 0, -1], color: [1, 1, 1], intensity: 1, range: 10, angleDeg: 15 };
    const wall = quadZ(0, -3, -3, 3, 3, GREY);
    const lit = renderScene(scene([wall], { lights: [spot] }));
    const unlit = renderScene(scene([wall], { lights: [] }));
    expect(pixel(lit, 32, 24)[0]).toBeGreaterThan(pixel(unlit, 32, 24)[0] + 50);
    expect(pixel(lit, 12, 24)).toEqual(pixel(unlit, 12, 24)); // ~1.8 m off-axis at 2 m: outside the 15 degree cone
  });

  it("adds the contributions of several lights", () => {
    expect(centre([dir([0.7, 0, -0.7]), dir([-0.7, 0, -0.7])])).toBeGreaterThan(centre([dir([0.7, 0, -0.7])]));
  });

  it("uses per-vertex normals when given instead of the face normal", () => {
    const tilted = new Float32Array(Array.from({ length: 4 }, () => [0.8, 0, 0.6]).flat());
    const q = quadZ(0, -1, -1, 1, 1, GREY, { normals: tilted });
    const tiltedPx = renderScene(scene([q])).data[(24 * 64 + 32) * 4];
    const flatPx = renderScene(scene([quad()])).data[(24 * 64 + 32) * 4];
    const unlitPx = renderScene(scene([q], { lights: [] })).data[(24 * 64 + 32) * 4];
    expect(tiltedPx).toBeLessThan(flatPx - 5); // n.l = 0.6 instead of 1
    expect(tiltedPx).toBeGreaterThan(unlitPx + 20);
  });

  it.each([
    { doubleSided: false, drawn: false },
    { doubleSided: true, drawn: true },
    { doubleSided: undefined, drawn: true },
  ])("draws the back face of a quad only when doubleSided is $doubleSided, lit like a front face", ({ doubleSided, drawn }) => {
    // Clockwise as seen from the camera, i.e. the camera looks at its back.
    const back = mesh([-1, -1, 0, -1, 1, 0, 1, 1, 0, 1, -1, 0], [0, 1, 2, 0, 2, 3], GREY, { doubleSided });
    const px = pixel(renderScene(scene([back])), 32, 24);
    if (drawn) expect(px).toEqual(pixel(renderScene(scene([quad()])), 32, 24));
    else expect(px).toEqual(srgbOf(BG));
  });

  it("shows a smooth surface's highlight where the light reflects into the camera, and none on a rough one", () => {
    // Light and camera both head-on: the mirror direction hits the centre.
    const centreOf = (roughness: number) => pixel(renderScene(scene([quadZ(0, -1, -1, 1, 1, [0.2, 0.2, 0.2, 1], { roughness })])), 32, 24)[0];
    expect(centreOf(0.2)).toBeGreaterThan(centreOf(1) + 40);
  });

  it("tints a metal's reflection with its base colour and gives it no diffuse light", () => {
    const gold = [1, 0.7, 0.2, 1] as [number, number, number, number];
    // Off the mirror direction (light from the side), a metal is darker than the same-coloured dielectric.
    const side = [{ type: "directional" as const, direction: [0.8, 0, -0.6] as Vec3, color: [1, 1, 1] as Vec3, intensity: 1 }];
    const metal = pixel(renderScene(scene([quadZ(0, -1, -1, 1, 1, gold, { metallic: 1, roughness: 0.6 })], { lights: side })), 32, 24);
    const paint = pixel(renderScene(scene([quadZ(0, -1, -1, 1, 1, gold, { metallic: 0, roughness: 0.6 })], { lights: side })), 32, 24);
    expect(metal[0]).toBeLessThan(paint[0]);
    expect(metal[0]).toBeGreaterThan(metal[2]); // still gold, not white
  });
});
