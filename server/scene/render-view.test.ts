// Invariant: a mesh object with material slots is drawn with each slot's material on its own
// triangles (one render mesh per slot, sharing the vertices), and its parts do not occlude each other.
import { describe, expect, it } from "vitest";
import { readAsset } from "../../tests/fixtures/assets/read";
import { planImport } from "../pipeline/import-scene";
import { applyOperation } from "./apply";
import { applyChanges } from "./changes";
import { buildRenderInput } from "./render-view";
import { renderScene } from "./render";
import { meshBoxes } from "./render/bounds";
import { packLights } from "./render/lights";
import { OCC_STRIDE, occludersByMesh } from "./render/occlusion";
import { DEFAULT_SKY, packSky } from "./render/sky";
import { setupView } from "./render/camera";
import { buildShadowMaps } from "./render/shadow";
import type { RenderMesh } from "./render/types";
import { initialState } from "./state";
import { ids, type MaterialRecord, type ObjectRecord } from "./types";

async function slotted() {
  const state = initialState();
  const { plan } = planImport("unity", (await readAsset("22_material_slot_not_merge")).scene, "slots");
  applyChanges(state, applyOperation(state, { tool: "import_asset", app: "unity", params: { plan } }).changes);
  return state;
}

describe("material slots in renders", () => {
  it("gives each slot of an object its own mesh with that slot's material and triangles", async () => {
    const state = await slotted();
    // Tell the six (all grey) materials apart.
    const palette = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1]];
    for (let k = 0; k < 6; k++) {
      const id = ids.material("unity", k === 0 ? "Material" : `Material.00${k}`);
      const m = state.get(id) as MaterialRecord;
      applyChanges(state, [{ id, before: m, after: { ...m, color: { r: palette[k][0], g: palette[k][1], b: palette[k][2], a: 1 } } }] as never);
    }
    const input = buildRenderInput(state, "unity", 320, 240);
    const all = [...state.values()].find((r) => (r as ObjectRecord).name === "all_mat_no_vc") as ObjectRecord;
    expect(all.materials).toHaveLength(6);
    const colours = new Set(input.meshes.map((m) => m.color.slice(0, 3).join()));
    expect(colours.size).toBeGreaterThanOrEqual(6); // every slot's colour is drawn somewhere
    // Parts of one object share its vertices and split its triangles.
    const byObject = new Map<number, typeof input.meshes>();
    for (const m of input.meshes) byObject.set(m.object!, [...(byObject.get(m.object!) ?? []), m]);
    const six = [...byObject.values()].find((p) => p.length === 6)!;
    expect(new Set(six.map((p) => p.positions)).size).toBe(1);
    expect(six.reduce((n, p) => n + p.indices.length, 0)).toBeGreaterThan(0);
    // And the frame shows more than one slot colour.
    const out = renderScene({ ...input, camera: { eye: [0, 6, 6], forward: [0, -1, -1], up: [0, 1, 0], fovYDeg: 60 } });
    const hues = new Set<string>();
    for (let i = 0; i < out.data.length; i += 4) {
      const [r, g, b] = [out.data[i], out.data[i + 1], out.data[i + 2]];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 80) hues.add([r > 128, g > 128, b > 128].join());
    }
    expect(hues.size).toBeGreaterThanOrEqual(3);
  });

  it("keeps parts of one object from occluding each other", async () => {
    const input = buildRenderInput(await slotted(), "unity", 64, 48);
    const boxes = meshBoxes(input.meshes);
    const lists = occludersByMesh(input.meshes, boxes, packLights(input.lights), packSky(DEFAULT_SKY, 1, input.lights));
    const centre = (j: number) => [0, 1, 2].map((a) => (boxes[j * 6 + a] + boxes[j * 6 + 3 + a]) / 2).join();
    let checked = 0;
    input.meshes.forEach((m, i) => {
      const seen = new Set<string>();
      for (const cell of lists[i]?.cells ?? []) for (let k = 0; k < cell.length; k += OCC_STRIDE) seen.add([cell[k], cell[k + 1], cell[k + 2]].join());
      input.meshes.forEach((x, j) => {
        if (j === i || x.object !== m.object) return;
        checked++;
        expect(seen.has(centre(j))).toBe(false);
      });
      // Other objects still occlude it where they are near.
    });
    expect(checked).toBeGreaterThan(10);
    expect(lists.some((g) => g !== null)).toBe(true);
  });
});

describe("closed primitives in shadow maps", () => {
  // Invariant: skipping a closed primitive's faces turned away from the light leaves every shadow map
  // exactly as drawing all faces makes it (so the primitives are closed and wound outwards), for
  // suns from several sides and spot lights outside and inside a solid.
  it("gives the same maps as drawing every face", () => {
    for (const app of ["unity", "blender", "godot"] as const) {
      const state = initialState();
      const calls: [string, Record<string, unknown>][] = [
        ["create_scene", { name: "Closed" }],
        ["create_gameobject", { name: "C", type: "Cube", position: { x: 0, y: 0.5, z: 0 }, rotation: { x: 10, y: 35, z: 5 } }],
        ["create_gameobject", { name: "S", type: "Sphere", position: { x: 1.5, y: 0.6, z: 0.3 }, scale: { x: 1, y: 1.4, z: 0.8 } }],
        ["create_gameobject", { name: "Y", type: "Cylinder", position: { x: -1.5, y: 0.4, z: -0.5 }, rotation: { x: 80, y: 0, z: 20 } }],
        ["create_gameobject", { name: "G", type: "Plane", scale: { x: 5, y: 1, z: 5 } }],
        ["set_camera", { position: { x: 0, y: 3, z: -7 }, rotation: { x: 20, y: 0, z: 0 } }],
        ["create_light", { name: "Sun", type: "Directional", rotation: { x: 40, y: -30, z: 0 }, color: { r: 1, g: 1, b: 1, a: 1 }, intensity: 1, range: 10, spot_angle: 30 }],
        ["create_light", { name: "Low", type: "Directional", rotation: { x: 8, y: 120, z: 0 }, color: { r: 1, g: 1, b: 1, a: 1 }, intensity: 1, range: 10, spot_angle: 30 }],
        ["create_light", { name: "Spot", type: "Spot", position: { x: 0.5, y: 4, z: -1 }, rotation: { x: 70, y: 0, z: 0 }, color: { r: 1, g: 1, b: 1, a: 1 }, intensity: 1, range: 20, spot_angle: 90 }],
        ["create_light", { name: "Inside", type: "Spot", position: { x: 0, y: 0.5, z: 0 }, rotation: { x: 90, y: 0, z: 0 }, color: { r: 1, g: 1, b: 1, a: 1 }, intensity: 1, range: 20, spot_angle: 120 }],
        // Within the spot map's near distance (5 cm) of the sphere's top: its near faces are clipped.
        ["create_light", { name: "Touching", type: "Spot", position: { x: 1.5, y: 1.33, z: 0.3 }, rotation: { x: 90, y: 0, z: 0 }, color: { r: 1, g: 1, b: 1, a: 1 }, intensity: 1, range: 20, spot_angle: 120 }],
        // Mirrored: its triangles are wound back outwards (render-view.ts), so it is closed too.
        ["create_gameobject", { name: "M", type: "Cube", position: { x: 3, y: 0.5, z: 1 }, scale: { x: -1, y: 1, z: 1 } }],
      ];
      for (const [tool, params] of calls) applyChanges(state, applyOperation(state, { tool, app, params } as never).changes);
      const input = buildRenderInput(state, app, 320, 180);
      expect(input.meshes.filter((m) => m.closed).length).toBe(4);
      const view = setupView(input.camera, 640, 360);
      const maps = (meshes: RenderMesh[]) =>
        buildShadowMaps(packLights(input.lights), meshes, view).flatMap((first) => {
          const out: Float32Array[] = [];
          for (let m = first; m; m = m.next) out.push(Float32Array.from(m.depth)); // copied: the buffers are reused
          return out;
        });
      const culled = maps(input.meshes);
      const all = maps(input.meshes.map((m) => ({ ...m, closed: false })));
      // Two cascades per sun, one map per spot. The same numbers mean other places and directions
      // in the other apps' axes: their camera looks away, so only the spots get maps there.
      expect(culled.length).toBe(app === "unity" ? 7 : 3);
      // Every map is exactly the same.
      culled.forEach((depth, k) => expect(Buffer.from(depth.buffer).equals(Buffer.from(all[k].buffer))).toBe(true));
      expect(culled.filter((depth) => depth.some((d) => d !== Infinity)).length).toBeGreaterThanOrEqual(app === "unity" ? 6 : 1);
    }
  });
});

describe("mirrored objects", () => {
  // Invariant: an object mirrored by a negative scale is shaded as its mirror image, not inside out
  // (its triangles' winding is reversed with the transform).
  it("shades a cube scaled -1 on x as the same cube unmirrored", () => {
    const frame = (scaleX: number) => {
      const state = initialState();
      const calls: [string, Record<string, unknown>][] = [
        ["create_scene", { name: "Mirror" }],
        ["create_gameobject", { name: "C", type: "Cube", position: { x: 0, y: 0.5, z: 0 }, scale: { x: scaleX, y: 1, z: 1 } }],
        ["set_camera", { position: { x: 1.5, y: 2, z: -3 }, rotation: { x: 25, y: -25, z: 0 } }],
        ["create_light", { name: "Sun", type: "Directional", rotation: { x: 40, y: -30, z: 0 }, color: { r: 1, g: 1, b: 1, a: 1 }, intensity: 1, range: 10, spot_angle: 30 }],
      ];
      for (const [tool, params] of calls) applyChanges(state, applyOperation(state, { tool, app: "unity", params } as never).changes);
      return renderScene({ ...buildRenderInput(state, "unity", 160, 120), dither: false }).data;
    };
    const plain = frame(1), mirrored = frame(-1);
    let cube = 0, off = 0;
    for (let i = 0; i < plain.length; i += 4) {
      const d = Math.max(Math.abs(plain[i] - mirrored[i]), Math.abs(plain[i + 1] - mirrored[i + 1]), Math.abs(plain[i + 2] - mirrored[i + 2]));
      if (d > 6) off++;
      if (Math.abs(plain[i] - plain[i + 2]) < 30 && plain[i] > 60) cube++;
    }
    expect(cube).toBeGreaterThan(1000); // the cube is in view
    expect(off).toBeLessThan(plain.length / 4 / 200);
  });
});
