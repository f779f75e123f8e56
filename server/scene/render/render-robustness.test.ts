// Invariant: renderScene never throws, hangs or emits NaN-garbage for degenerate geometry, cameras
// or lights — bad parts are skipped or replaced by defaults — and only rejects invalid image sizes.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { mesh, pixel, quadZ, scene, uvSphere } from "./test-helpers";
import type { RenderCamera, RenderInput, RenderLight, RenderMesh } from "./types";

const RED = [1, 0, 0, 1] as [number, number, number, number];
const cam = (c: Partial<RenderCamera>): RenderCamera => ({ eye: [0, 0, 5], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 60, ...c });
const bad = <T>(v: unknown) => v as T;

const cases: { name: string; input: Partial<RenderInput> & { meshes?: RenderMesh[] } }[] = [
  { name: "zero-area triangles", input: { meshes: [mesh([0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0], [0, 1, 2, 0, 0, 0, 3, 3, 3], RED)] } },
  { name: "NaN positions", input: { meshes: [mesh([NaN, 0, 0, 1, NaN, 0, 0, 1, NaN], [0, 1, 2], RED)] } },
  { name: "infinite and huge positions", input: { meshes: [mesh([Infinity, 0, 0, 1e30, 0, 0, 0, -1e38, 0], [0, 1, 2], RED)] } },
  { name: "out-of-range indices", input: { meshes: [mesh([0, 0, 0, 1, 0, 0, 0, 1, 0], [0, 1, 7, 99, 4294967295, 2], RED)] } },
  { name: "an empty mesh", input: { meshes: [mesh([], [], RED)] } },
  { name: "indices but no positions", input: { meshes: [mesh([], [0, 1, 2], RED)] } },
  { name: "position and index counts not multiples of 3", input: { meshes: [mesh([0, 0, 0, 1, 0, 0, 0, 1, 0, 5], [0, 1, 2, 1], RED)] } },
  { name: "NaN and zero normals", input: { meshes: [quadZ(0, -1, -1, 1, 1, RED, { normals: new Float32Array([NaN, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]) })] } },
  { name: "a too-short normals array", input: { meshes: [quadZ(0, -1, -1, 1, 1, RED, { normals: new Float32Array(3) })] } },
  { name: "a NaN colour", input: { meshes: [quadZ(0, -1, -1, 1, 1, [NaN, NaN, 2, NaN])] } },
  { name: "the camera inside geometry", input: { camera: cam({ eye: [0, 0, 0] }), meshes: [uvSphere([0, 0, 0], 1, 12, 8, RED)] } },
  { name: "eye == target (zero forward)", input: { camera: cam({ forward: [0, 0, 0] }) } },
  { name: "up parallel to forward", input: { camera: cam({ forward: [0, -1, 0], up: [0, 1, 0] }) } },
  { name: "a NaN camera", input: { camera: cam({ eye: [NaN, NaN, NaN], forward: [NaN, 0, 0], up: [NaN, NaN, NaN], fovYDeg: NaN }) } },
  { name: "fov 0 and near 0", input: { camera: cam({ fovYDeg: 0, near: 0 }) } },
  { name: "fov 180, negative near, far < near", input: { camera: cam({ fovYDeg: 180, near: -1, far: -5 }) } },
  {
    name: "broken lights",
    input: {
      lights: bad<RenderLight[]>([
        { type: "directional", direction: [0, 0, 0], color: [1, 1, 1], intensity: 1 },
        { type: "directional", direction: [NaN, 1, 0], color: [1, 1, 1], intensity: 1 },
        { type: "point", position: [0, 0, 1], color: [1, 1, 1], intensity: NaN, range: 5 },
        { type: "point", position: [0, 0, 0], color: [1, 1, 1], intensity: 1, range: -1 },
        { type: "spot", position: [0, 0, 1], direction: [0, 0, 0], color: [1, 1, 1], intensity: 1, range: 5, angleDeg: 0 },
        { type: "spot", position: [0, 0, 1], direction: [0, 0, -1], color: [1, 1, 1], intensity: 1, range: 5, angleDeg: NaN },
        { type: "area", position: [0, 0, 1] },
        null,
      ]),
    },
  },
  { name: "a point light exactly on the surface", input: { lights: [{ type: "point", position: [0, 0, 0], color: [1, 1, 1], intensity: 1, range: 1 }] } },
  { name: "missing meshes and lights arrays", input: { meshes: bad<RenderMesh[]>(undefined), lights: bad<RenderLight[]>(undefined) } },
];

describe("robustness", () => {
  it.each(cases)("renders without throwing given $name", ({ input }) => {
    const base = scene([quadZ(0, -1, -1, 1, 1, [0, 1, 0, 1])]);
    const meshes = "meshes" in input && input.meshes === undefined ? bad<RenderMesh[]>(undefined) : [...base.meshes, ...(input.meshes ?? [])];
    const full: RenderInput = { ...base, ...input, meshes };
    const out = renderScene(full); // a hang would show as the test's timeout
    expect(out.data.length).toBe(64 * 48 * 4);
    for (let i = 3; i < out.data.length; i += 4) expect(out.data[i]).toBe(255);
  });

  it("still draws the valid triangles of a mesh that also contains NaN and degenerate ones", () => {
    const m = mesh([NaN, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 1, -1, 0, 1, 1, 0], [0, 1, 2, 1, 1, 2, 3, 4, 5], RED);
    const [r, g] = pixel(renderScene(scene([m])), 34, 26);
    expect(r).toBeGreaterThan(180);
    expect(g).toBeLessThan(60);
  });

  it.each([
    { width: 0, height: 48 },
    { width: 64.5, height: 48 },
    { width: 64, height: NaN },
    { width: 100000, height: 16 },
  ])("rejects an invalid size $width x $height with a RangeError", ({ width, height }) => {
    expect(() => renderScene(scene([], { width, height }))).toThrow(RangeError);
  });
});
