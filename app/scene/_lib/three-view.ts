/**
 * The WebGL view of a scene (three.js). Each object's matrix is its world matrix in its app's
 * space followed by the app's change of basis to three's space (right-handed, Y up; see
 * server/scene/math.ts), as take_screenshot computes it, so both agree on where everything is.
 * The basis is folded into each instance's matrix, not set on a parent: Unity's is a mirror, and
 * three would flip the front faces of a mirrored parent although Unity's primitives are already
 * wound for a mirrored space. Meshes of one primitive and material share one InstancedMesh: a
 * 10,000-object scene is a handful of draw calls. Frames are drawn on demand, not in a loop.
 * While the camera moves, frames draw at half the resolution (a quarter of the pixels; a
 * software renderer pays per pixel), and the full frame follows once it has been still for
 * SETTLE_MS. A change from another client is drawn after the page has painted, so the tree and
 * the inspector show it without waiting for a slow frame.
 */
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { appToCanonical, eulerToMatrix, localForward, multiply, transformDirection, transformPoint } from "@/server/scene/math";
import { primitiveMesh } from "@/server/scene/primitives";
import { worldMatrices } from "@/server/scene/world";
import type { AppId, ObjectRecord, PrimitiveType } from "@/server/scene/types";
import type { ObjectView, SceneModel } from "./scene-model";
import { axesOverlay, groundGrid } from "./axes-overlay";

const PRIMITIVES = new Set(["Plane", "Cube", "Sphere", "Cylinder"]);
const DEFAULT_COLOR = new THREE.Color(0.8, 0.8, 0.8);
const SELECTED = 0xf08a3c;

/** How long the camera must be still before the full-resolution frame is drawn. */
const SETTLE_MS = 200;

/** Above this many triangles a frame would be slow on a software renderer: spheres and cylinders get fewer facets. */
const TRIANGLE_BUDGET = 250_000;

/**
 * Whether this browser gives a WebGL context, and whether it draws in software (SwiftShader,
 * llvmpipe): there, multisampling costs more than it is worth.
 */
export function probeWebgl(): { available: boolean; software: boolean } {
  try {
    const gl = document.createElement("canvas").getContext("webgl2") ?? document.createElement("canvas").getContext("webgl");
    if (!gl) return { available: false, software: false };
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    const renderer = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    gl.getExtension("WEBGL_lose_context")?.loseContext();
    return { available: true, software: /swiftshader|llvmpipe|software/i.test(renderer) };
  } catch {
    return { available: false, software: false };
  }
}

/** Geometry of mesh data (positions, normals, indices). */
function fromData(data: { positions: Float32Array; normals: Float32Array; indices: Uint32Array }): THREE.BufferGeometry {
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(data.positions, 3));
  g.setAttribute("normal", new THREE.BufferAttribute(data.normals, 3));
  g.setIndex(new THREE.BufferAttribute(data.indices, 1));
  return g;
}

/**
 * A sphere or cylinder with few facets, fitted to the full one's bounds in the app's space. Built
 * in three's space and brought into the app's like Kiln's primitives (index order kept).
 */
function coarse(app: AppId, type: "Sphere" | "Cylinder", full: THREE.BufferGeometry): THREE.BufferGeometry {
  const g = type === "Sphere" ? new THREE.SphereGeometry(1, 8, 5) : new THREE.CylinderGeometry(1, 1, 2, 8, 1);
  g.applyMatrix4(new THREE.Matrix4().fromArray(appToCanonical(app)).invert());
  g.computeBoundingBox();
  full.computeBoundingBox();
  const from = g.boundingBox!, to = full.boundingBox!;
  const size = from.getSize(new THREE.Vector3()), want = to.getSize(new THREE.Vector3());
  g.translate(...from.getCenter(new THREE.Vector3()).negate().toArray());
  g.scale(want.x / (size.x || 1), want.y / (size.y || 1), want.z / (size.z || 1));
  g.translate(...to.getCenter(new THREE.Vector3()).toArray());
  return g;
}

interface Pickable { object: THREE.Object3D; names: string[] }

/** One scene view on a canvas. Call `dispose` when the canvas goes. */
export class SceneView {
  readonly renderer: THREE.WebGLRenderer;
  readonly camera = new THREE.PerspectiveCamera(60, 1, 0.05, 5000);
  readonly controls: OrbitControls;
  private scene = new THREE.Scene();
  private content = new THREE.Group();
  private overlay = new THREE.Group();
  private geometries = new Map<string, THREE.BufferGeometry>();
  private pickables: Pickable[] = [];
  private model: SceneModel | null = null;
  private selection: THREE.BoxHelper | null = null;
  private worlds = new Map<string, THREE.Matrix4>();
  private frame = 0;
  private afterPaint = 0;
  private settle = 0;
  private readonly fullRatio: number;
  /** Frames drawn so far, and the last frame's draw time in ms (tests and benches read these). */
  frames = 0;
  lastFrameMs = 0;
  /** When the first frame with objects was drawn (performance.now()), for benches. */
  firstSceneFrameAt = 0;

  constructor(private canvas: HTMLCanvasElement, private app: AppId, private software = false) {
    // preserveDrawingBuffer: tests and users can read the picture (pixel checks, "copy image").
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: !software, preserveDrawingBuffer: true });
    this.fullRatio = software ? 1 : Math.min(window.devicePixelRatio, 2);
    this.renderer.setPixelRatio(this.fullRatio);
    this.scene.background = new THREE.Color(0x2a2e35);
    this.scene.add(this.content, this.overlay);
    this.scene.add(new THREE.HemisphereLight(0xdde6ff, 0x3a3530, 0.6));
    const grid = groundGrid(40);
    // A hair above the ground so a ground plane at 0 does not hide it in stripes.
    grid.position.y = 0.002;
    this.overlay.add(grid, axesOverlay(app));
    this.controls = new OrbitControls(this.camera, canvas);
    // Only the user's drags and wheel turns lower the resolution, not the page placing the camera.
    let interacting = false;
    this.controls.addEventListener("start", () => { interacting = true; });
    this.controls.addEventListener("end", () => { interacting = false; });
    this.controls.addEventListener("change", () => {
      if (interacting) this.moving();
      this.requestRender();
    });
    this.resize();
  }

  /** Matches the drawing buffer to the canvas's size on screen. */
  resize(): void {
    const { clientWidth: w, clientHeight: h } = this.canvas;
    if (w === 0 || h === 0) return;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  /** Draws a frame on the next animation frame (once, however often it is asked). */
  requestRender(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.renderNow();
    });
  }

  /** The camera is moving: draw at half resolution until it has been still for SETTLE_MS. */
  private moving(): void {
    if (this.renderer.getPixelRatio() !== this.fullRatio / 2) this.renderer.setPixelRatio(this.fullRatio / 2);
    clearTimeout(this.settle);
    this.settle = window.setTimeout(() => {
      this.renderer.setPixelRatio(this.fullRatio);
      this.requestRender();
    }, SETTLE_MS);
  }

  /** Draws a frame once the page has painted what changed with it (the tree, the inspector). */
  private renderAfterPaint(): void {
    if (this.afterPaint || this.frame) return; // a frame is already on its way
    this.afterPaint = requestAnimationFrame(() => {
      // The callback runs before the paint; the timeout runs after it.
      window.setTimeout(() => {
        this.afterPaint = 0;
        this.renderNow();
      }, 0);
    });
  }

  /** Draws a frame now. */
  renderNow(): void {
    const t = performance.now();
    this.renderer.render(this.scene, this.camera);
    this.lastFrameMs = performance.now() - t;
    this.frames++;
    if (!this.firstSceneFrameAt && this.pickables.length) {
      // Wait for the pixels (reading one does), so the time is when the scene is really shown.
      const gl = this.renderer.getContext();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      this.firstSceneFrameAt = performance.now();
    }
  }

  /** Shows `model` (replacing what was shown). */
  setModel(model: SceneModel, selected: string | null): void {
    if (this.moveOnly(model)) {
      this.outline(selected);
      return this.renderAfterPaint();
    }
    this.model = model;
    this.clearContent();
    const records = model.objects.map((o) => ({ ...o, app: this.app }) as unknown as ObjectRecord);
    const worlds = worldMatrices(records);
    const toCanon = appToCanonical(this.app);
    this.worlds = new Map([...worlds].map(([name, m]) => [name, new THREE.Matrix4().fromArray(multiply(toCanon, m))]));
    const materials = new Map(model.materials.map((m) => [m.name, m]));
    const batches = new Map<string, ObjectView[]>();
    for (const o of model.objects) {
      if (o.kind === "mesh") {
        const key = `${o.type}\u0000${o.material ?? ""}`;
        const list = batches.get(key) ?? [];
        list.push(o);
        batches.set(key, list);
      } else if (o.kind === "light" && o.light) this.addLight(o);
      else this.addEmpty(o);
    }
    let triangles = 0;
    for (const list of batches.values()) triangles += list.length * this.triangles(list[0].type, false);
    const lowPoly = triangles > TRIANGLE_BUDGET;
    for (const list of batches.values()) {
      const first = list[0];
      const m = first.material ? materials.get(first.material) : undefined;
      const color = m ? new THREE.Color(m.color.r, m.color.g, m.color.b) : DEFAULT_COLOR;
      const alpha = { transparent: !!m && m.color.a < 1, opacity: m?.color.a ?? 1 };
      // Surfaces drawn a little deeper than they are (slope-scaled), so the ground grid's lines win
      // over a ground plane at height 0 at every distance: lifting the grid 2 mm alone left it
      // dotted beyond a few metres, where the depth buffer cannot tell 2 mm apart.
      const offset = { polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 };
      // A software renderer shades every pixel on the CPU: Lambert there, physically based elsewhere.
      const material = this.software
        ? new THREE.MeshLambertMaterial({ color, ...alpha, ...offset })
        : new THREE.MeshStandardMaterial({ color, metalness: m?.metallic ?? 0, roughness: m?.roughness ?? 0.6, ...alpha, ...offset });
      const mesh = new THREE.InstancedMesh(this.geometry(first.type, lowPoly), material, list.length);
      list.forEach((o, i) => mesh.setMatrixAt(i, this.worlds.get(o.name)!));
      mesh.instanceMatrix.needsUpdate = true;
      mesh.computeBoundingSphere();
      this.content.add(mesh);
      this.pickables.push({ object: mesh, names: list.map((o) => o.name) });
    }
    this.outline(selected);
    this.renderAfterPaint();
  }

  /**
   * When `model` differs from the shown one only in transforms of meshes and empties (the common
   * live change), moves them in place instead of rebuilding every batch. False when it cannot.
   */
  private moveOnly(model: SceneModel): boolean {
    const old = this.model;
    if (!old || old.materials !== model.materials || old.objects.length !== model.objects.length) return false;
    for (let i = 0; i < model.objects.length; i++) {
      const a = old.objects[i], b = model.objects[i];
      if (a === b) continue;
      if (a.kind === "light" || a.name !== b.name || a.kind !== b.kind || a.type !== b.type || a.material !== b.material || a.parent !== b.parent) return false;
    }
    this.model = model;
    const records = model.objects.map((o) => ({ ...o, app: this.app }) as unknown as ObjectRecord);
    const toCanon = appToCanonical(this.app);
    for (const [name, m] of worldMatrices(records)) this.worlds.get(name)!.fromArray(multiply(toCanon, m));
    for (const p of this.pickables) {
      if (p.object instanceof THREE.InstancedMesh) {
        const mesh = p.object;
        p.names.forEach((name, i) => mesh.setMatrixAt(i, this.worlds.get(name)!));
        mesh.instanceMatrix.needsUpdate = true;
        mesh.computeBoundingSphere();
      } else p.object.matrix.makeTranslation(new THREE.Vector3().setFromMatrixPosition(this.worlds.get(p.names[0])!));
    }
    return true;
  }

  /**
   * Geometry of a primitive in this app's space (imported meshes show as a unit box); with
   * `lowPoly`, spheres and cylinders with fewer facets.
   */
  private geometry(type: string, lowPoly = false): THREE.BufferGeometry {
    const base = PRIMITIVES.has(type) ? type : "Mesh";
    const key = lowPoly && (base === "Sphere" || base === "Cylinder") ? `${base}-low` : base;
    let g = this.geometries.get(key);
    if (!g) {
      if (key !== base) g = coarse(this.app, base as "Sphere" | "Cylinder", this.geometry(base));
      else g = fromData(primitiveMesh(this.app, base === "Mesh" ? "Cube" : (base as PrimitiveType)));
      this.geometries.set(key, g);
    }
    return g;
  }

  private triangles(type: string, lowPoly: boolean): number {
    return this.geometry(type, lowPoly).index!.count / 3;
  }

  private addLight(o: ObjectView): void {
    const l = o.light!;
    const world = this.worlds.get(o.name)!;
    const color = new THREE.Color(l.color.r, l.color.g, l.color.b);
    const fwd = new THREE.Vector3(...localForward(this.app)).transformDirection(world).normalize();
    const pos = new THREE.Vector3().setFromMatrixPosition(world);
    let light: THREE.Light;
    if (l.type === "Directional") light = new THREE.DirectionalLight(color, l.intensity * 2);
    else if (l.type === "Point") light = new THREE.PointLight(color, l.intensity * 20, l.range, 1);
    else light = new THREE.SpotLight(color, l.intensity * 20, l.range, (l.spotAngle / 2) * (Math.PI / 180), 0.2, 1);
    light.position.copy(pos);
    if (light instanceof THREE.DirectionalLight || light instanceof THREE.SpotLight) {
      // Directional: light comes from -forward; three aims from position to target.
      light.target.position.copy(pos).add(fwd);
      this.content.add(light.target);
    }
    this.content.add(light);
    this.addMarker(o, 0xffd66b);
  }

  private addEmpty(o: ObjectView): void {
    this.addMarker(o, 0xb0b8c4);
  }

  /** A small wire octahedron where a light or an empty is, so it can be seen and picked. */
  private addMarker(o: ObjectView, color: number): void {
    const marker = new THREE.Mesh(new THREE.OctahedronGeometry(0.25), new THREE.MeshBasicMaterial({ color, wireframe: true }));
    marker.matrixAutoUpdate = false;
    marker.matrix.makeTranslation(new THREE.Vector3().setFromMatrixPosition(this.worlds.get(o.name)!));
    this.content.add(marker);
    this.pickables.push({ object: marker, names: [o.name] });
  }

  private clearContent(): void {
    for (const child of [...this.content.children]) {
      this.content.remove(child);
      if (child instanceof THREE.Mesh) {
        (child.material as THREE.Material).dispose();
        if (!([...this.geometries.values()] as THREE.BufferGeometry[]).includes(child.geometry)) child.geometry.dispose();
        if (child instanceof THREE.InstancedMesh) child.dispose();
      }
      if (child instanceof THREE.Light) child.dispose();
    }
    this.pickables = [];
  }

  /** Outlines the selected object (null: none) and draws. */
  select(name: string | null): void {
    this.outline(name);
    this.requestRender();
  }

  private outline(name: string | null): void {
    if (this.selection) {
      this.scene.remove(this.selection);
      this.selection.dispose();
      this.selection = null;
    }
    const o = name ? this.model?.objects.find((x) => x.name === name) : undefined;
    if (o) {
      const proxy = new THREE.Mesh(o.kind === "mesh" ? this.geometry(o.type) : new THREE.OctahedronGeometry(0.3));
      proxy.matrixAutoUpdate = false;
      proxy.matrix.copy(this.worlds.get(o.name)!);
      proxy.matrixWorld.copy(proxy.matrix);
      this.selection = new THREE.BoxHelper(proxy, SELECTED);
      // Drawn through everything: the outline of a cube is exactly its edges, which depth would hide.
      (this.selection.material as THREE.LineBasicMaterial).depthTest = false;
      this.selection.renderOrder = 2;
      this.scene.add(this.selection);
    }
  }

  /** Where an object's origin is on the canvas (CSS pixels from its top-left); null when unknown or behind the camera. */
  screenPoint(name: string): { x: number; y: number } | null {
    const m = this.worlds.get(name);
    if (!m) return null;
    const p = new THREE.Vector3().setFromMatrixPosition(m).project(this.camera);
    if (p.z > 1 || p.z < -1) return null;
    return { x: ((p.x + 1) / 2) * this.canvas.clientWidth, y: ((1 - p.y) / 2) * this.canvas.clientHeight };
  }

  /** The object under a point of the canvas (client coordinates), or null. */
  pick(clientX: number, clientY: number): string | null {
    const rect = this.canvas.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const hits = ray.intersectObjects(this.pickables.map((p) => p.object), false);
    for (const hit of hits) {
      const p = this.pickables.find((x) => x.object === hit.object);
      if (p) return p.names[hit.instanceId ?? 0] ?? null;
    }
    return null;
  }

  /** Puts the view where the scene's camera is, looking where it looks (fov included). */
  viewThroughSceneCamera(): void {
    if (!this.model) return;
    const cam = this.model.camera;
    const toCanon = appToCanonical(this.app);
    const rot = multiply(toCanon, eulerToMatrix(this.app, cam.rotation));
    const fwd = localForward(this.app);
    const eye = transformPoint(toCanon, cam.position.x, cam.position.y, cam.position.z);
    const forward = new THREE.Vector3(...transformDirection(rot, fwd[0], fwd[1], fwd[2])).normalize();
    const up = new THREE.Vector3(...transformDirection(rot, 0, 1, 0)).normalize();
    this.camera.position.set(...eye);
    this.camera.up.copy(up);
    this.camera.fov = cam.fov;
    this.camera.updateProjectionMatrix();
    // Orbit around the point the camera looks at, about as far away as the scene's origin.
    const distance = Math.max(2, this.camera.position.length());
    this.controls.target.copy(this.camera.position).addScaledVector(forward, distance);
    this.camera.lookAt(this.controls.target);
    this.camera.up.set(0, 1, 0);
    this.controls.update();
    this.requestRender();
  }

  /** Frames the whole scene from above and in front. */
  frameAll(): void {
    const box = new THREE.Box3();
    for (const p of this.pickables) box.expandByObject(p.object);
    if (box.isEmpty()) box.set(new THREE.Vector3(-5, -1, -5), new THREE.Vector3(5, 1, 5));
    const center = box.getCenter(new THREE.Vector3());
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 2);
    this.camera.fov = 50;
    this.camera.updateProjectionMatrix();
    this.camera.position.copy(center).add(new THREE.Vector3(0.6, 0.5, 0.8).normalize().multiplyScalar(size));
    this.controls.target.copy(center);
    this.controls.update();
    this.requestRender();
  }

  /** Turns the orbit camera by `radians` around the target (keyboard orbit; benches). */
  orbit(radians: number, pitch = 0): void {
    const offset = this.camera.position.clone().sub(this.controls.target);
    const s = new THREE.Spherical().setFromVector3(offset);
    s.theta += radians;
    s.phi = Math.min(Math.PI - 0.05, Math.max(0.05, s.phi + pitch));
    this.camera.position.copy(this.controls.target).add(new THREE.Vector3().setFromSpherical(s));
    this.camera.lookAt(this.controls.target);
    this.controls.update();
    this.moving();
    this.requestRender();
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    cancelAnimationFrame(this.afterPaint);
    clearTimeout(this.settle);
    this.clearContent();
    for (const g of this.geometries.values()) g.dispose();
    this.controls.dispose();
    this.renderer.dispose();
  }
}
