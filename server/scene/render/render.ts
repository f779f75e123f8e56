/**
 * renderScene: the top-level frame loop — clear, sort meshes near-to-far,
 * draw each, return the RGBA8 image.
 */
import { linearToSrgb8, packRgba8, srgbLut } from "./color";
import { DEFAULT_NEAR, setupView } from "./camera";
import { GeometryScratch, drawMesh } from "./draw-mesh";
import { packLights } from "./lights";
import { RasterState } from "./raster";
import type { RenderInput, RenderMesh, RenderOutput, Rgba } from "./types";

/** Default linear background colour: a neutral, slightly blue grey. */
export const DEFAULT_BACKGROUND: Rgba = [0.19, 0.2, 0.23, 1];
/** Default ambient level (white, multiplied by the base colour). */
export const DEFAULT_AMBIENT = 0.25;
/** Largest accepted image side; the supported contract is 16..4096. */
export const MAX_SIZE = 8192;

// V8 keeps an object's hidden class ("map") only while some object has it; the hot
// functions are optimised against these maps, so when one frame's state objects die
// the next frame deoptimises and re-JITs (~+50% frame time). One tiny long-lived
// instance of each keeps the maps, and the optimised code, valid across frames.
const MAP_ANCHORS = [
  new RasterState(1, 1, new Float32Array(1), new Uint8Array(4), packLights([]), srgbLut()),
  new GeometryScratch(1, 1, DEFAULT_NEAR),
  setupView({ eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 50 }, 1, 1),
];

/**
 * Renders triangle meshes to an sRGB RGBA8 buffer (opaque; mesh alpha is ignored).
 * Throws only for invalid width/height; any geometry, light or camera
 * garbage is skipped or replaced with defaults.
 */
export function renderScene(input: RenderInput): RenderOutput {
  const { width, height } = input;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > MAX_SIZE || height > MAX_SIZE) {
    throw new RangeError(`renderScene: width/height must be integers in 1..${MAX_SIZE}, got ${width}x${height}`);
  }
  const n = width * height;
  const buffer = new ArrayBuffer(n * 4);
  const bg = input.background ?? DEFAULT_BACKGROUND;
  new Uint32Array(buffer).fill(packRgba8(linearToSrgb8(bg[0]), linearToSrgb8(bg[1]), linearToSrgb8(bg[2]), 255));

  const view = setupView(input.camera, width, height);
  const depth = new Float32Array(n);
  if (Number.isFinite(view.far)) depth.fill(1 / view.far);
  const st = new RasterState(width, height, depth, new Uint8Array(buffer), packLights(input.lights), srgbLut());
  const amb = input.ambient;
  st.setAmbient(typeof amb === "number" && Number.isFinite(amb) ? Math.max(0, amb) : DEFAULT_AMBIENT);

  const meshes = Array.isArray(input.meshes) ? input.meshes : [];
  const scratch = new GeometryScratch(width, height, view.near);
  for (const i of nearToFar(meshes, view.m)) drawMesh(meshes[i], view, st, scratch);
  void MAP_ANCHORS; // referenced from a function so the engine keeps it alive
  return { width, height, data: new Uint8ClampedArray(buffer) };
}

/** Mesh indices ordered by view depth of their bounding-box centre, so near meshes fill the depth buffer first. */
function nearToFar(meshes: readonly RenderMesh[], m: Float64Array): number[] {
  const keys = new Float64Array(meshes.length);
  const order: number[] = [];
  for (let i = 0; i < meshes.length; i++) {
    const p = meshes[i]?.positions;
    if (!p || p.length < 3) continue;
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let k = 0; k + 2 < p.length; k += 3) {
      const x = p[k], y = p[k + 1], z = p[k + 2];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
    const d = m[8] * (x0 + x1) * 0.5 + m[9] * (y0 + y1) * 0.5 + m[10] * (z0 + z1) * 0.5 + m[11];
    keys[i] = Number.isFinite(d) ? d : 0;
    order.push(i);
  }
  return order.sort((a, b) => keys[a] - keys[b]);
}
