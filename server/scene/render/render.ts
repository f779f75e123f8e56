/**
 * renderScene: the top-level frame — shadow maps, then every mesh into a supersampled
 * colour/depth buffer, background and overlays, then the downsample to RGBA8.
 */
import { DEFAULT_NEAR, setupView, type ViewSetup } from "./camera";
import { GeometryScratch, drawMesh } from "./draw-mesh";
import { axisLength, drawLabels, drawLines3d } from "./overlay";
import { packLights } from "./lights";
import { meshBoxes } from "./bounds";
import { occludersByMesh, vertexOcclusion, type Occluders } from "./occlusion";
import { RasterState } from "./raster";
import { backdrop, fillBackground, resolve } from "./resolve";
import { buildShadowMaps, type ShadowMap, type ShadowShare } from "./shadow";
import { scratchF32 } from "./scratch";
import { DEFAULT_SKY, packSky, sanitizeSky } from "./sky";
import { TextureMap, prepareTexture } from "./texture";
import type { RenderInput, RenderMesh, RenderOutput, Rgba, Vec3 } from "./types";

/** Default ambient (hemisphere light) strength. */
export const DEFAULT_AMBIENT = 1;
/**
 * Default exposure before the ACES curve: 0.6 is the pre-exposure Narkowicz's fit was made for,
 * and is also where its mid-tones match Blender's Filmic view on the same scene (sky 170 vs 173,
 * lit ground 213 vs 205 in sRGB, see tests/fixtures/render).
 */
export const DEFAULT_EXPOSURE = 0.6;
/** Default samples per pixel along each axis. */
export const DEFAULT_SUPERSAMPLE = 2;
/** Largest accepted image side; the supported contract is 16..4096. */
export const MAX_SIZE = 8192;
/** Most samples one frame may hold (~16.7 M: 270 MB of buffers); larger images get fewer samples per pixel. */
export const MAX_SAMPLES = 4096 * 4096;

// V8 keeps an object's hidden class ("map") only while some object has it; the hot
// functions are optimised against these maps, so when one frame's state objects die
// the next frame deoptimises and re-JITs (~+50% frame time). One tiny long-lived
// instance of each keeps the maps, and the optimised code, valid across frames.
const MAP_ANCHORS = [
  new RasterState(1, 1, 1, new Float32Array(1), new Float32Array(3), packLights([]), packSky(DEFAULT_SKY, 1, []), []),
  new GeometryScratch(1, 1, DEFAULT_NEAR),
  setupView({ eye: [0, 0, 0], forward: [0, 0, -1], up: [0, 1, 0], fovYDeg: 50 }, 1, 1),
  new TextureMap(1, 1, new Uint8Array(4), new Float32Array(2)),
];

/** Samples per pixel along each axis actually used for an image of this size. */
export function supersampleFor(width: number, height: number, requested: number | undefined): number {
  const want = typeof requested === "number" && Number.isFinite(requested) ? Math.round(requested) : DEFAULT_SUPERSAMPLE;
  const fit = Math.floor(Math.sqrt(MAX_SAMPLES / (width * height)));
  return Math.max(1, Math.min(4, want, fit, Math.floor(MAX_SIZE / Math.max(width, height))));
}

/**
 * Renders triangle meshes to an sRGB RGBA8 buffer (opaque; mesh alpha is ignored).
 * Throws only for invalid width/height; any geometry, light or camera
 * garbage is skipped or replaced with defaults.
 */
export function renderScene(input: RenderInput): RenderOutput {
  const plan = planFrame(input);
  const out: RenderOutput = { width: plan.width, height: plan.height, data: new Uint8ClampedArray(plan.width * plan.height * 4) };
  renderBand(plan, 0, plan.height, out.data);
  drawFrameLabels(out, input);
  return out;
}

/**
 * What every band of one frame shares: computed once per frame (per thread). A frame can be drawn
 * as horizontal bands, each its own small image with the camera's principal point shifted (see
 * setupView), so bands can go to different threads and their buffers stay small. The shadow maps
 * and the mesh order are the whole frame's, so bands meet without a seam.
 */
export interface FramePlan {
  input: RenderInput;
  width: number;
  height: number;
  ss: number;
  lights: ReturnType<typeof packLights>;
  sky: Float64Array;
  shadows: (ShadowMap | null)[];
  order: number[];
  /**
   * Per mesh: the first and last frame rows its bounding box can reach ([first, last] from index
   * 2i; all rows when the box reaches behind the near plane), so a band skips the meshes it cannot
   * see without transforming their vertices: at 1080p each band would otherwise transform and sort
   * out every triangle of the scene, ~5 % of a frame of 100 spheres.
   */
  rows: Float64Array;
  /** Per mesh: the spheres of other objects that dim its ambient light. */
  occluders: (Occluders | null)[];
  /**
   * Per mesh: that dimming per vertex, for finely tessellated meshes (occlusion.ts), or null;
   * undefined until a band first draws the mesh (each thread works out only the meshes it draws).
   */
  vertexAo: (Float32Array | null | undefined)[];
  /**
   * Per-vertex occlusion by vertex array: the material slots of one object are meshes sharing one
   * vertex array (positions and normals) and the same occluders (occludersByMesh leaves out all
   * of the object's parts), so it is worked out once for all of them (vertexAoOf).
   */
  vertexAoShared: Map<Float32Array, { object: number; normals: Float32Array | undefined; values: Float32Array }>;
  /** Per mesh: its base colour texture ready to sample, or null (flat colour). */
  textures: (TextureMap | null)[];
  ambient: number;
  exposure: number;
}

/**
 * Checks the size and computes what the frame's bands share (lights, sky, shadow maps, draw
 * order). With `share`, two threads building the same frame split the shadow maps between them.
 */
export function planFrame(input: RenderInput, share?: ShadowShare): FramePlan {
  const { width, height } = input;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > MAX_SIZE || height > MAX_SIZE) {
    throw new RangeError(`renderScene: width/height must be integers in 1..${MAX_SIZE}, got ${width}x${height}`);
  }
  const ss = supersampleFor(width, height, input.supersample);
  const view = setupView(input.camera, width * ss, height * ss);
  const meshes = Array.isArray(input.meshes) ? input.meshes : [];
  const lights = packLights(input.lights);
  const amb = input.ambient;
  const ambient = typeof amb === "number" && Number.isFinite(amb) ? Math.max(0, amb) : DEFAULT_AMBIENT;
  const exp = input.exposure;
  const exposure = typeof exp === "number" && Number.isFinite(exp) && exp > 0 ? exp : DEFAULT_EXPOSURE;
  const sky = packSky(sanitizeSky(input.sky), ambient, input.lights);
  const boxes = meshBoxes(meshes);
  const shadows = input.shadows === false ? new Array<null>(lights.count).fill(null) : buildShadowMaps(lights, meshes, view, share);
  const textures = meshes.map((m) => prepareTexture(m, input.images));
  const occluders = occludersByMesh(meshes, boxes, lights, sky);
  const vertexAo = new Array<Float32Array | null | undefined>(meshes.length);
  const rows = meshRows(boxes, view, ss, meshes.length);
  return { input, width, height, ss, lights, sky, shadows, order: nearToFar(meshes, boxes, view.m), rows, occluders, vertexAo, vertexAoShared: new Map(), textures, ambient, exposure };
}

/**
 * Draws output rows top .. top + rows - 1 of the frame into `data` (RGBA8, its first byte is the
 * band's first pixel): geometry, background and grid/axes; labels are drawn once on the finished frame.
 */
export function renderBand(plan: FramePlan, top: number, rows: number, data: Uint8ClampedArray): void {
  const { input, width, ss } = plan;
  const sw = width * ss, sh = rows * ss, n = sw * sh;
  const view = setupView(input.camera, sw, plan.height * ss, top * ss);
  const meshes = Array.isArray(input.meshes) ? input.meshes : [];
  const clearDepth = Number.isFinite(view.far) ? Math.fround(1 / view.far) : 0; // as stored in the Float32Array
  const depth = scratchF32("depth", n).fill(clearDepth);
  // Colour needs no clearing: resolve reads only samples a surface reached (the others show the backdrop).
  const st = new RasterState(sw, sh, ss, depth, scratchF32("color", n * 3), plan.lights, plan.sky, plan.shadows);
  st.setScene(view.eye[0], view.eye[1], view.eye[2], plan.exposure, plan.ambient);
  st.top = top;

  const scratch = new GeometryScratch(sw, sh, view.near);
  const bottom = top + rows, reach = plan.rows;
  for (const i of plan.order) {
    if (reach[2 * i + 1] < top || reach[2 * i] >= bottom) continue;
    const occ = plan.occluders[i];
    st.occluders = occ;
    const ao = occ === null ? null : () => vertexAoOf(plan, i, occ);
    drawMesh(meshes[i], view, st, scratch, plan.textures[i], ao);
  }
  const bd = backdrop(st, view, clearDepth, background(input.background), plan.exposure);
  // Overlays blend over the background, so they need it in the colour buffer first; otherwise the
  // resolve fills uncovered samples itself.
  if (input.overlay) {
    fillBackground(st, bd);
    drawLines3d(st, view, input.overlay, ss);
  }
  resolve(st, width, rows, ss, data, top, input.dither !== false, input.overlay ? null : bd);
  void MAP_ANCHORS; // referenced from a function so the engine keeps it alive
}

/**
 * Mesh i's per-vertex occlusion, worked out the first time a band draws it (each thread works out
 * only the meshes it draws), or taken from another material slot of the same object that has the
 * same vertices: a mesh of 241k vertices in 8 slots did it 8 times.
 */
function vertexAoOf(plan: FramePlan, i: number, occ: Occluders): Float32Array | null {
  const known = plan.vertexAo[i];
  if (known !== undefined) return known;
  const mesh = plan.input.meshes[i], object = mesh.object, twin = plan.vertexAoShared.get(mesh.positions);
  const same = object !== undefined && twin?.object === object && twin.normals === mesh.normals;
  const values = vertexOcclusion(mesh, occ, same ? twin.values : undefined);
  if (values && object !== undefined && !twin) plan.vertexAoShared.set(mesh.positions, { object, normals: mesh.normals, values });
  return (plan.vertexAo[i] = values);
}

/** Draws the overlay's labels and axis letters on a finished frame (always on top, never split by bands). */
export function drawFrameLabels(out: RenderOutput, input: RenderInput): void {
  const overlay = input.overlay;
  if (!overlay) return;
  const outView = setupView(input.camera, out.width, out.height);
  const len = axisLength(outView);
  const tips = (overlay.axes ?? []).map((a) => ({ text: a.label, color: a.color, position: a.direction.map((c) => c * len * 1.08) as Vec3 }));
  const labels = [...tips, ...(overlay.labels ?? [])];
  if (labels.length) drawLabels(out, outView, labels);
}

function background(bg: Rgba | undefined): [number, number, number] | null {
  if (!Array.isArray(bg)) return null;
  return [bg[0], bg[1], bg[2]].map((c) => (Number.isFinite(c) ? Math.max(0, c) : 0)) as [number, number, number];
}

/**
 * Per mesh, the frame rows (output pixels) its bounding box projects to, a row of margin each side,
 * as [first, last]; all rows when a corner is not in front of the near plane (its projection is
 * then no bound); none (first > last) for a mesh with no finite vertex, which draws nothing.
 */
function meshRows(box: Float64Array, view: ViewSetup, ss: number, count: number): Float64Array {
  const rows = new Float64Array(count * 2);
  const m = view.m;
  for (let i = 0; i < count; i++) {
    const o = i * 6;
    let lo = Infinity, hi = -Infinity;
    if (Number.isNaN(box[o])) { rows[2 * i] = 1; rows[2 * i + 1] = 0; continue; }
    for (let k = 0; k < 8; k++) {
      const x = box[o + (k & 1) * 3], y = box[o + 1 + ((k >> 1) & 1) * 3], z = box[o + 2 + ((k >> 2) & 1) * 3];
      const W = m[8] * x + m[9] * y + m[10] * z + m[11];
      if (!(W > view.near)) { lo = -Infinity; hi = Infinity; break; }
      const Y = (m[4] * x + m[5] * y + m[6] * z + m[7]) / W;
      if (Y < lo) lo = Y;
      if (Y > hi) hi = Y;
    }
    rows[2 * i] = Math.floor(lo / ss) - 1;
    rows[2 * i + 1] = Math.ceil(hi / ss) + 1;
  }
  return rows;
}

/** Mesh indices ordered by view depth of their bounding-box centre, so near meshes fill the depth buffer first. */
function nearToFar(meshes: readonly RenderMesh[], box: Float64Array, m: Float64Array): number[] {
  const keys = new Float64Array(meshes.length);
  const order: number[] = [];
  for (let i = 0; i < meshes.length; i++) {
    const p = meshes[i]?.positions;
    if (!p || p.length < 3) continue;
    const o = i * 6;
    const d = m[8] * (box[o] + box[o + 3]) * 0.5 + m[9] * (box[o + 1] + box[o + 4]) * 0.5 + m[10] * (box[o + 2] + box[o + 5]) * 0.5 + m[11];
    keys[i] = Number.isFinite(d) ? d : 0; // a mesh with no finite vertex draws nothing anyway
    order.push(i);
  }
  return order.sort((a, b) => keys[a] - keys[b]);
}

export type { ViewSetup };
