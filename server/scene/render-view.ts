/**
 * Turns one app's scene into the renderer's input: world-space meshes, lights and camera in the
 * canonical space (right-handed, Y up). Pure; the PNG encoding happens outside the core.
 */
import { appToCanonical, eulerToMatrix, localForward, multiply, transformDirection, transformPoint, type Mat4 } from "./math";
import { meshDataOf } from "./mesh-data";
import { primitiveMesh, type MeshData } from "./primitives";
import type { RenderInput, RenderLight, RenderMesh } from "./render";
import { getScene, sceneObjects } from "./state";
import { worldMatrices } from "./world";
import { ids, type AppId, type MaterialRecord, type MeshRecord, type ObjectRecord, type SceneState } from "./types";

const DEFAULT_COLOR: [number, number, number, number] = [0.8, 0.8, 0.8, 1];

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

const norm = (v: [number, number, number]): [number, number, number] => {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
};

/** The render input for an app's scene (the active one unless named) at a size. */
export function buildRenderInput(state: SceneState, app: AppId, width: number, height: number, sceneName?: string): RenderInput {
  const scene = getScene(state, app, sceneName);
  const objects = sceneObjects(state, scene);
  const worlds = worldMatrices(objects);
  const toCanon = appToCanonical(app);
  const meshes: RenderMesh[] = [];
  const lights: RenderLight[] = [];
  const fwd = localForward(app);
  for (const o of objects) {
    const world = multiply(toCanon, worlds.get(o.name)!);
    if (o.kind === "mesh") {
      const mesh = objectMesh(state, o);
      if (!mesh) continue;
      const material = o.material ? (state.get(ids.material(app, o.material)) as MaterialRecord | undefined) : undefined;
      const c = material?.color;
      meshes.push({
        ...worldMesh(mesh, world), indices: mesh.indices,
        color: c ? [c.r, c.g, c.b, c.a] : DEFAULT_COLOR, metallic: material?.metallic, roughness: material?.roughness,
      });
    } else if (o.kind === "light" && o.light) {
      const l = o.light;
      const color: [number, number, number] = [l.color.r, l.color.g, l.color.b];
      const position = transformPoint(world, 0, 0, 0);
      const direction = norm(transformDirection(world, fwd[0], fwd[1], fwd[2]));
      if (l.type === "Directional") lights.push({ type: "directional", direction, color, intensity: l.intensity });
      else if (l.type === "Point") lights.push({ type: "point", position, color, intensity: l.intensity, range: l.range });
      else lights.push({ type: "spot", position, direction, color, intensity: l.intensity, range: l.range, angleDeg: l.spotAngle });
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
  return { width, height, camera: { eye, forward, up, fovYDeg: cam.fov, near: 0.05, far: 5000 }, meshes, lights };
}
