/**
 * Turns one app's scene into the renderer's input: world-space meshes, lights and camera in the
 * canonical space (right-handed, Y up). Pure; the PNG encoding happens outside the core.
 */
import { appToCanonical, eulerToMatrix, localForward, multiply, transformDirection, transformPoint, type Mat4 } from "./math";
import { meshDataOf, meshUvSet } from "./mesh-data";
import { primitiveMesh, type MeshData } from "./primitives";
import type { RenderInput, RenderLight, RenderMesh, RenderTexture } from "./render";
import { getScene, sceneObjects } from "./state";
import { worldMatrices } from "./world";
import { ids, type AppId, type MaterialRecord, type MeshRecord, type ObjectRecord, type SceneState } from "./types";

const DEFAULT_COLOR: [number, number, number, number] = [0.8, 0.8, 0.8, 1];

/** Determinant of a column-major matrix's 3x3 part: negative when it mirrors. */
function determinant3(m: Mat4): number {
  return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
}

/**
 * The triangles wound the other way round. A mirroring transform (negative determinant, e.g. a
 * scale of -1) turns counter-clockwise faces clockwise, so the renderer would take the outside of
 * a mirrored object for its inside and shade it with inward normals; glTF defines the winding of
 * such a node's triangles as clockwise for the same reason.
 */
function reversedWinding(indices: Uint32Array): Uint32Array {
  const out = Uint32Array.from(indices); // a malformed tail (not a whole triangle) as it was
  for (let t = 0; t + 2 < indices.length; t += 3) {
    out[t] = indices[t]; out[t + 1] = indices[t + 2]; out[t + 2] = indices[t + 1];
  }
  return out;
}

/** Geometry of a mesh object: its primitive, or its imported mesh record. */
export function objectMesh(state: SceneState, o: ObjectRecord): MeshData | null {
  if (o.primitive) return primitiveMesh(o.app, o.primitive);
  if (!o.mesh) return null;
  const m = state.get(o.mesh) as MeshRecord | undefined;
  if (!m) return null;
  return meshDataOf(m);
}

function worldMesh(mesh: MeshData, world: Mat4): { positions: Float32Array; normals: Float32Array } {
  const n = mesh.positions.length;
  const positions = new Float32Array(n), normals = new Float32Array(n);
  for (let i = 0; i < n; i += 3) {
    positions.set(transformPoint(world, mesh.positions[i], mesh.positions[i + 1], mesh.positions[i + 2]), i);
    // Non-uniform scale bends normals slightly; fine for shading a preview.
    const d = transformDirection(world, mesh.normals[i], mesh.normals[i + 1], mesh.normals[i + 2]);
    const len = Math.hypot(d[0], d[1], d[2]) || 1;
    normals[i] = d[0] / len; normals[i + 1] = d[1] / len; normals[i + 2] = d[2] / len;
  }
  return { positions, normals };
}

/**
 * The render texture of a mesh object's base colour, when its material has one and its mesh the
 * UV set it names (primitives have no UVs). The image itself is the caller's to decode and supply
 * in RenderInput.images under this id (textureImageIds).
 */
function baseColorTexture(state: SceneState, o: ObjectRecord, material: MaterialRecord | undefined): RenderTexture | undefined {
  const ref = material?.textures?.baseColor;
  if (!ref || !o.mesh) return undefined;
  const record = state.get(o.mesh) as MeshRecord | undefined;
  const uv = record?.type === "mesh" ? meshUvSet(record, ref.uv === 1 ? 1 : 0) : undefined;
  if (!uv) return undefined;
  return { image: ref.image, uv, ...(ref.offset ? { offset: ref.offset } : {}), ...(ref.scale ? { scale: ref.scale } : {}), ...(ref.rotation !== undefined ? { rotation: ref.rotation } : {}) };
}

/** The triangles of each material slot of a mesh object with their material's name; one part without slots. */
function materialParts(state: SceneState, o: ObjectRecord, indices: Uint32Array): { indices: Uint32Array; material: string | null | undefined }[] {
  const record = o.mesh ? (state.get(o.mesh) as MeshRecord | undefined) : undefined;
  const groups = record?.type === "mesh" ? record.groups : undefined;
  if (!groups?.length || !o.materials || o.materials.length !== groups.length) return [{ indices, material: o.material }];
  return groups.flatMap((g, k) => (g.start >= 0 && g.count > 0 && g.start + g.count <= indices.length ? [{ indices: indices.subarray(g.start, g.start + g.count), material: o.materials![k] }] : []));
}

/** Ids of the images a render input's textures need (each once), for the caller to decode. */
export function textureImageIds(input: RenderInput): string[] {
  return [...new Set(input.meshes.flatMap((m) => (m.texture ? [m.texture.image] : [])))];
}

const norm = (v: [number, number, number]): [number, number, number] => {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
};

/** Overlays take_screenshot can draw (see server/scene/render/overlay.ts). */
export const OVERLAYS = ["grid", "axes", "labels"] as const;
export type OverlayName = (typeof OVERLAYS)[number];

const AXES: { label: string; local: [number, number, number]; color: [number, number, number] }[] = [
  { label: "X", local: [1, 0, 0], color: [0.95, 0.25, 0.25] },
  { label: "Y", local: [0, 1, 0], color: [0.3, 0.85, 0.3] },
  { label: "Z", local: [0, 0, 1], color: [0.3, 0.5, 1] },
];

/** Where an object's name is drawn: above the top of its mesh, or at its origin. */
function labelPosition(mesh: { positions: Float32Array } | null, origin: [number, number, number]): [number, number, number] {
  if (!mesh || mesh.positions.length < 3) return origin;
  const p = mesh.positions;
  let x0 = Infinity, x1 = -Infinity, y1 = -Infinity, z0 = Infinity, z1 = -Infinity;
  for (let i = 0; i + 2 < p.length; i += 3) {
    x0 = Math.min(x0, p[i]); x1 = Math.max(x1, p[i]); y1 = Math.max(y1, p[i + 1]); z0 = Math.min(z0, p[i + 2]); z1 = Math.max(z1, p[i + 2]);
  }
  return [(x0 + x1) / 2, y1, (z0 + z1) / 2];
}

/** The render input for an app's scene (the active one unless named) at a size, with optional overlays. */
export function buildRenderInput(state: SceneState, app: AppId, width: number, height: number, sceneName?: string, overlay: readonly OverlayName[] = []): RenderInput {
  const scene = getScene(state, app, sceneName);
  const objects = sceneObjects(state, scene);
  const worlds = worldMatrices(objects);
  const toCanon = appToCanonical(app);
  const meshes: RenderMesh[] = [];
  const lights: RenderLight[] = [];
  const fwd = localForward(app);
  const labels: { text: string; position: [number, number, number] }[] = [];
  for (const o of objects) {
    const world = multiply(toCanon, worlds.get(o.name)!);
    const origin = transformPoint(world, 0, 0, 0);
    if (o.kind === "mesh") {
      const mesh = objectMesh(state, o);
      if (!mesh) continue;
      const placed = worldMesh(mesh, world);
      const mirrored = determinant3(worlds.get(o.name)!) < 0;
      // One mesh per material slot (an imported mesh's groups), sharing the vertices; an empty slot
      // is drawn in the default colour, as an editor shows faces without a material.
      const object = meshes.length;
      for (const part of materialParts(state, o, mirrored ? reversedWinding(mesh.indices) : mesh.indices)) {
        const material = part.material ? (state.get(ids.material(app, part.material)) as MaterialRecord | undefined) : undefined;
        const c = material?.color;
        const texture = baseColorTexture(state, o, material);
        meshes.push({
          ...placed, indices: part.indices, object,
          color: c ? [c.r, c.g, c.b, c.a] : DEFAULT_COLOR, metallic: material?.metallic, roughness: material?.roughness,
          ...(texture ? { texture } : {}),
          // A primitive's solids are closed (one part: they have no slots); a plane is a sheet. A
          // mirrored one is too, once its winding is reversed above (a flat one, determinant 0, is not).
          ...(o.primitive && o.primitive !== "Plane" && Math.abs(determinant3(worlds.get(o.name)!)) > 0 ? { closed: true } : {}),
        });
      }
      labels.push({ text: o.name, position: labelPosition(placed, origin) });
      continue;
    }
    labels.push({ text: o.name, position: origin });
    if (o.kind === "light" && o.light) {
      const l = o.light;
      const color: [number, number, number] = [l.color.r, l.color.g, l.color.b];
      const position = transformPoint(world, 0, 0, 0);
      const direction = norm(transformDirection(world, fwd[0], fwd[1], fwd[2]));
      if (l.type === "Directional") lights.push({ type: "directional", direction, color, intensity: l.intensity });
      else if (l.type === "Point") lights.push({ type: "point", position, color, intensity: l.intensity, range: l.range });
      // Kiln's spot angle is the whole cone (as Unity's and Blender's); the renderer takes the half-angle.
      else lights.push({ type: "spot", position, direction, color, intensity: l.intensity, range: l.range, angleDeg: l.spotAngle / 2 });
    }
  }
  const cam = scene.camera;
  const camRot = multiply(toCanon, eulerToMatrix(app, cam.rotation));
  const eye = transformPoint(toCanon, cam.position.x, cam.position.y, cam.position.z);
  const forward = norm(transformDirection(camRot, fwd[0], fwd[1], fwd[2]));
  const up = norm(transformDirection(camRot, 0, 1, 0));
  if (lights.length === 0) {
    // Like an editor viewport's default lighting: an unlit scene is still readable.
    lights.push({ type: "directional", direction: norm([forward[0] + 0.3, forward[1] - 0.6, forward[2]]), color: [1, 1, 1], intensity: 0.9 });
  }
  const input: RenderInput = { width, height, camera: { eye, forward, up, fovYDeg: cam.fov, near: 0.05, far: 5000 }, meshes, lights };
  if (overlay.length) {
    input.overlay = {
      grid: overlay.includes("grid"),
      // The app's own axes (Unity's X is canonical -X, Blender's Z is canonical +Y), in its usual colours.
      axes: overlay.includes("axes") ? AXES.map((a) => ({ label: a.label, color: a.color, direction: norm(transformDirection(toCanon, ...a.local)) })) : undefined,
      labels: overlay.includes("labels") ? labels : undefined,
    };
  }
  return input;
}
