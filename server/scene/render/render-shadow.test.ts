// Invariant: directional and spot lights cast shadows onto other surfaces (darker than lit ground,
// where the light is blocked and nowhere else), shadows follow the light's direction, lit surfaces
// are free of acne, and `shadows: false` turns them off.
import { describe, expect, it } from "vitest";
import { renderScene } from "./index";
import { groundQuad, lookAt, mesh, pixel, uvSphere } from "./test-helpers";
import type { RenderInput, RenderLight, RenderMesh, Vec3 } from "./types";
import { buildShadowMaps, type ShadowMap, type ShadowShare } from "./shadow";
import { packLights } from "./lights";
import { setupView } from "./camera";

/** An axis-aligned box (12 triangles, outward-facing, counter-clockwise). */
function box(c: Vec3, h: number, color: [number, number, number, number]): RenderMesh {
  const p: number[] = [];
  const idx: number[] = [];
  const faces: [Vec3, Vec3, Vec3][] = [
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, 0, 1], [0, 1, 0]],
    [[0, 1, 0], [0, 0, 1], [1, 0, 0]], [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[0, 0, -1], [0, 1, 0], [1, 0, 0]],
  ];
  for (const [n, u, v] of faces) {
    const base = p.length / 3;
    for (const [a, b] of [[-1, -1], [1, -1], [1, 1], [-1, 1]]) {
      for (let k = 0; k < 3; k++) p.push(c[k] + h * (n[k] + a * u[k] + b * v[k]));
    }
    idx.push(base, base + 1, base + 2, base, base + 2, base + 3);
  }
  return mesh(p, idx, color);
}

const GREY: [number, number, number, number] = [0.7, 0.7, 0.7, 1];
const sun = (direction: Vec3): RenderLight => ({ type: "directional", direction, color: [1, 1, 1], intensity: 1.5 });

function shot(lights: RenderLight[], extra: Partial<RenderInput> = {}) {
  // Looking straight down at a 1 m box standing on a 20 m ground.
  return renderScene({
    width: 160, height: 160, camera: { ...lookAt([0, 10, 0.001], [0, 0, 0], 40) },
    meshes: [groundQuad(0, 10, GREY), box([0, 0.5, 0], 0.5, [0.8, 0.2, 0.2, 1])], lights, ...extra,
  });
}
const lum = (p: number[]) => p[0] + p[1] + p[2];

describe("shadows", () => {
  it("darkens the ground on the far side of a box from a directional light, and only there", () => {
    // Light travelling towards +x: the shadow falls at +x of the box (image right).
    const out = shot([sun([1, -1, 0])]);
    const shadow = lum(pixel(out, 100, 80)), litOther = lum(pixel(out, 60, 80)), litFar = lum(pixel(out, 80, 20));
    expect(shadow).toBeLessThan(litOther * 0.7);
    expect(Math.abs(litOther - litFar)).toBeLessThan(12); // lit ground is even: no acne, no stray shadow
    const off = shot([sun([1, -1, 0])], { shadows: false });
    expect(lum(pixel(off, 100, 80))).toBeGreaterThan(shadow * 1.4);
  });

  it("moves the shadow when the light turns", () => {
    const east = shot([sun([1, -1, 0])]), west = shot([sun([-1, -1, 0])]);
    expect(lum(pixel(east, 100, 80))).toBeLessThan(lum(pixel(west, 100, 80)) * 0.7);
    expect(lum(pixel(west, 60, 80))).toBeLessThan(lum(pixel(east, 60, 80)) * 0.7);
  });

  it("casts a shadow from a spot light", () => {
    const spot: RenderLight = { type: "spot", position: [-3, 3, 0], direction: [1, -1, 0], color: [1, 1, 1], intensity: 3, range: 30, angleDeg: 40 };
    const out = shot([spot]);
    expect(lum(pixel(out, 100, 80))).toBeLessThan(lum(pixel(out, 80, 40)) * 0.7);
  });

  it("leaves a lit ground plane without acne at a grazing sun", () => {
    const out = renderScene({ width: 120, height: 80, camera: lookAt([0, 2, 6], [0, 0, -4], 60), meshes: [groundQuad(0, 50, GREY)], lights: [sun([1, -0.15, -0.3])] });
    const values = new Set<number>();
    for (let x = 0; x < 120; x += 3) values.add(lum(pixel(out, x, 70)));
    expect(Math.max(...values) - Math.min(...values)).toBeLessThan(15);
  });
});

describe("shadow maps split between threads", () => {
  // Invariant: threads drawing their share of every map's rows into shared buffers together make
  // exactly the maps one thread makes alone; a share left undrawn shows.
  it("gives the single-thread maps when both halves are drawn, and not when one is missing", () => {
    const meshes = [groundQuad(0, 10, GREY), box([0, 0.5, 0], 0.5, [0.8, 0.2, 0.2, 1]), box([1.5, 1, -1], 0.3, GREY)];
    const lights = packLights([sun([-0.4, -1, -0.3]), { type: "spot", position: [0, 5, 2], direction: [0, -1, -0.4], color: [1, 1, 1], intensity: 2, range: 20, angleDeg: 40 }]);
    const view = setupView(lookAt([0, 4, 6], [0, 0, 0], 50), 320, 180);
    const copy = (maps: (ShadowMap | null)[]) => maps.flatMap((m) => { const out: number[][] = []; for (let c = m; c; c = c.next) out.push(Array.from(c.depth)); return out; });
    const alone = copy(buildShadowMaps(lights, meshes, view));
    expect(alone.length).toBe(3);
    const shared = new Map<number, Float32Array>();
    const share = (part: number): ShadowShare => ({
      buffer: (slot, length) => { let b = shared.get(slot); if (!b) shared.set(slot, (b = new Float32Array(length).fill(-1))); return b; },
      part, parts: 2, ready: () => {},
    });
    const top = buildShadowMaps(lights, meshes, view, share(0));
    expect(copy(top)).not.toEqual(alone); // the bottom half is still unwritten
    buildShadowMaps(lights, meshes, view, share(1));
    expect(copy(top)).toEqual(alone);
  });

  it("shares out whole maps instead for a scene of very many triangles, with the same result", () => {
    const meshes = [groundQuad(0, 10, GREY), uvSphere([0, 1, 0], 1, 500, 250, GREY)]; // ~250,000 triangles
    const lights = packLights([sun([-0.4, -1, -0.3]), { type: "spot", position: [0, 5, 2], direction: [0, -1, -0.4], color: [1, 1, 1], intensity: 2, range: 20, angleDeg: 40 }]);
    const view = setupView(lookAt([0, 4, 6], [0, 0, 0], 50), 320, 180);
    const alone = buildShadowMaps(lights, meshes, view).flatMap((m) => { const out: Float32Array[] = []; for (let c = m; c; c = c.next) out.push(Float32Array.from(c.depth)); return out; });
    const shared = new Map<number, Float32Array>();
    const drawn: number[][] = [];
    const share = (part: number): ShadowShare => ({
      buffer: (slot, length) => { let b = shared.get(slot); if (!b) shared.set(slot, (b = new Float32Array(length).fill(-1))); return b; },
      part, parts: 2, ready: () => {},
    });
    for (const part of [0, 1]) {
      const maps = buildShadowMaps(lights, meshes, view, share(part)).flatMap((m) => { const out: ShadowMap[] = []; for (let c = m; c; c = c.next) out.push(c); return out; });
      // Each thread draws whole maps: every map is either all its own or untouched (still -1).
      drawn.push(maps.map((m, k) => (m.depth.every((d, i) => d === alone[k][i]) ? 1 : m.depth.every((d) => d === -1) ? 0 : NaN)));
      if (part === 1) maps.forEach((m, k) => expect(Buffer.from(m.depth.buffer, m.depth.byteOffset, m.depth.byteLength).equals(Buffer.from(alone[k].buffer))).toBe(true));
    }
    expect(drawn[0]).toEqual([1, 0, 1]); // maps 0 and 2 by the first thread
  });
});
