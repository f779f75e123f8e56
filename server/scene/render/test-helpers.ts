/**
 * Test-only mesh/scene builders for the renderer tests. Not exported from
 * index.ts and not used by the renderer itself.
 */
import { sceneToSrgb8 } from "./color";
import { DEFAULT_EXPOSURE } from "./render";
import type { RenderCamera, RenderInput, RenderMesh, RenderOutput, Rgba, Vec3 } from "./types";

/** Flat linear background of the test scenes (so "background" is one exact colour). */
export const BG: Rgba = [0.19, 0.2, 0.23, 1];

/** The sRGB8 pixel a flat scene-linear colour becomes (default exposure, ACES, sRGB). */
export function srgbOf(c: Rgba | number[]): [number, number, number, number] {
  return [sceneToSrgb8(c[0], DEFAULT_EXPOSURE), sceneToSrgb8(c[1], DEFAULT_EXPOSURE), sceneToSrgb8(c[2], DEFAULT_EXPOSURE), 255];
}

/** Builds a mesh from plain arrays; fully rough unless told (a matte surface, so pixel checks see no highlight). */
export function mesh(positions: number[], indices: number[], color: Rgba, extra: Partial<RenderMesh> = {}): RenderMesh {
  return { positions: new Float32Array(positions), indices: new Uint32Array(indices), color, roughness: 1, ...extra };
}

/** An axis-aligned quad in the plane z = `z`, spanning [x0,x1] x [y0,y1], facing +Z (counter-clockwise). */
export function quadZ(z: number, x0: number, y0: number, x1: number, y1: number, color: Rgba, extra: Partial<RenderMesh> = {}): RenderMesh {
  return mesh([x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z], [0, 1, 2, 0, 2, 3], color, extra);
}

/** A square ground quad at height `y`, half-size `h`, facing +Y. */
export function groundQuad(y: number, h: number, color: Rgba): RenderMesh {
  return mesh([-h, y, h, h, y, h, h, y, -h, -h, y, -h], [0, 1, 2, 0, 2, 3], color);
}

/** A UV sphere with smooth normals: 2 * seg * rings triangles (pole triangles are degenerate, on purpose). */
export function uvSphere(center: Vec3, radius: number, seg: number, rings: number, color: Rgba): RenderMesh {
  const pos: number[] = [];
  const nrm: number[] = [];
  const idx: number[] = [];
  for (let r = 0; r <= rings; r++) {
    const th = (r / rings) * Math.PI;
    for (let s = 0; s <= seg; s++) {
      const ph = (s / seg) * Math.PI * 2;
      const n = [Math.sin(th) * Math.cos(ph), Math.cos(th), -Math.sin(th) * Math.sin(ph)];
      nrm.push(n[0], n[1], n[2]);
      pos.push(center[0] + radius * n[0], center[1] + radius * n[1], center[2] + radius * n[2]);
    }
  }
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < seg; s++) {
      const a = r * (seg + 1) + s, b = a + seg + 1;
      idx.push(a, b, a + 1, a + 1, b, b + 1);
    }
  }
  return mesh(pos, idx, color, { normals: new Float32Array(nrm) });
}

/** A camera at `eye` looking at `target`. */
export function lookAt(eye: Vec3, target: Vec3, fovYDeg = 60): RenderCamera {
  return { eye, forward: [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]], up: [0, 1, 0], fovYDeg };
}

/**
 * A scene with a camera at z = +5 looking down -Z and one white head-on directional light, on the
 * flat background BG, one sample per pixel, no shadows and no dithering: the rasterizer tests check
 * coverage and exact colours per pixel; supersampling, shadows, dithering and the sky have their own tests.
 */
export function scene(meshes: RenderMesh[], extra: Partial<RenderInput> = {}): RenderInput {
  return {
    width: 64,
    height: 48,
    camera: lookAt([0, 0, 5], [0, 0, 0]),
    meshes,
    lights: [{ type: "directional", direction: [0, 0, -1], color: [1, 1, 1], intensity: 1 }],
    background: BG,
    supersample: 1,
    shadows: false,
    dither: false,
    ...extra,
  };
}

/** RGBA of pixel (x, y), top-left origin. */
export function pixel(out: RenderOutput, x: number, y: number): [number, number, number, number] {
  const o = (y * out.width + x) * 4;
  return [out.data[o], out.data[o + 1], out.data[o + 2], out.data[o + 3]];
}
