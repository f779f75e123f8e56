/**
 * The app's own axes at the origin, in its usual colours (X red, Y green, Z blue) and labelled:
 * Blender's Z points up, Unity's X points to three's -X (Unity is left-handed), Godot's are three's.
 * Labels are drawn on a canvas with the system font (no font files to load).
 */
import * as THREE from "three";
import { appToCanonical, transformDirection } from "@/server/scene/math";
import type { AppId } from "@/server/scene/types";

const AXES = [
  { label: "X", dir: [1, 0, 0] as const, color: 0xef5f5f },
  { label: "Y", dir: [0, 1, 0] as const, color: 0x5fcf6f },
  { label: "Z", dir: [0, 0, 1] as const, color: 0x5f8fef },
];
const LENGTH = 2;

function label(text: string, color: number): THREE.Sprite {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  const ctx = canvas.getContext("2d")!;
  ctx.font = "bold 44px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillStyle = `#${color.toString(16).padStart(6, "0")}`;
  ctx.fillText(text, 32, 34);
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: new THREE.CanvasTexture(canvas), depthTest: false }));
  sprite.scale.setScalar(0.5);
  return sprite;
}

/** Lines and labels of the app's axes, in three's space. */
export function axesOverlay(app: AppId): THREE.Group {
  const group = new THREE.Group();
  group.name = `axes (${app})`;
  const toCanon = appToCanonical(app);
  for (const a of AXES) {
    const d = new THREE.Vector3(...transformDirection(toCanon, a.dir[0], a.dir[1], a.dir[2]));
    const geometry = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), d.clone().multiplyScalar(LENGTH)]);
    const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: a.color, depthTest: false }));
    line.renderOrder = 1;
    const text = label(a.label, a.color);
    text.position.copy(d.multiplyScalar(LENGTH + 0.3));
    group.add(line, text);
  }
  return group;
}

/**
 * A ground grid on three's XZ plane (every app's ground: Blender's XY maps onto it), `size` wide,
 * one line per unit, the centre lines lighter. Each line is cut into unit segments: SwiftShader
 * drops a whole line that crosses the camera's near plane, which for a long line is most of them.
 */
export function groundGrid(size = 40): THREE.LineSegments {
  const half = size / 2;
  const points: number[] = [];
  const colors: number[] = [];
  const major = new THREE.Color(0x5a616d), minor = new THREE.Color(0x3a3f48);
  for (let i = -half; i <= half; i++) {
    const c = i === 0 ? major : minor;
    for (let j = -half; j < half; j++) {
      points.push(j, 0, i, j + 1, 0, i, i, 0, j, i, 0, j + 1);
      for (let k = 0; k < 4; k++) colors.push(c.r, c.g, c.b);
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(points, 3));
  geometry.setAttribute("color", new THREE.Float32BufferAttribute(colors, 3));
  return new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ vertexColors: true }));
}
