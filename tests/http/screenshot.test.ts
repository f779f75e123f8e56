/**
 * take_screenshot renders what the camera sees: a recipe-shaped scene (plane scaled 50,
 * directional light, camera, red cube) gives a PNG where the red cube and the plane are visible.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

async function fetchPng(url: string): Promise<PNG> {
  const r = await fetch(`${kiln.url}${url}`);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("image/png");
  const bytes = Buffer.from(await r.arrayBuffer());
  const out = path.join(ROOT, "tests/output");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, path.basename(url)), bytes);
  return PNG.sync.read(bytes);
}

const pixel = (png: PNG, x: number, y: number) => {
  const i = (png.width * Math.round(y) + Math.round(x)) * 4;
  return { r: png.data[i], g: png.data[i + 1], b: png.data[i + 2] };
};

describe("take_screenshot", () => {
  it("shows the red cube on the plane from the camera", async () => {
    await kiln.ok("create_scene", { name: "Shot" });
    await kiln.ok("create_gameobject", { name: "Ground", type: "Plane", scale: { x: 50, y: 1, z: 50 } });
    await kiln.ok("create_light", { name: "Sun", type: "Directional", intensity: 1.2, rotation: { x: 50, y: -30, z: 0 } });
    await kiln.ok("set_camera", { position: { x: 0, y: 3, z: -8 }, rotation: { x: 15, y: 0, z: 0 } });
    await kiln.ok("create_material", { name: "Red", color: { r: 1, g: 0, b: 0, a: 1 } });
    await kiln.ok("create_gameobject", { name: "Box", type: "Cube", position: { x: 0, y: 0.5, z: 0 } });
    await kiln.ok("set_material", { target: "Box", material: "Red" });
    const shot = await kiln.ok("take_screenshot", { width: 1280, height: 720 });
    expect(shot).toMatchObject({ width: 1280, height: 720, url: `/screenshots/${shot.id}.png` });
    const png = await fetchPng(shot.url);
    expect([png.width, png.height]).toEqual([1280, 720]);

    // The cube is straight ahead of the camera: the centre column around it is red.
    let red = 0;
    for (let y = 300; y < 520; y += 4) for (let x = 560; x < 720; x += 4) {
      const p = pixel(png, x, y);
      if (p.r > 120 && p.g < 70 && p.b < 70) red++;
    }
    expect(red).toBeGreaterThan(200);
    // The plane fills the bottom of the picture (grey, not the sky), the top is sky.
    const bottom = pixel(png, 100, 700), top = pixel(png, 100, 10);
    expect(Math.abs(bottom.r - bottom.g)).toBeLessThan(20);
    expect(bottom.r).toBeGreaterThan(top.r + 20);
  });

  it("near surfaces hide far ones", async () => {
    await kiln.ok("create_scene", { name: "Depth", app: "godot" });
    await kiln.ok("create_material", { name: "Green", color: { r: 0, g: 1, b: 0 }, app: "godot" });
    await kiln.ok("create_material", { name: "Blue", color: { r: 0, g: 0, b: 1 }, app: "godot" });
    // Godot's camera looks -Z from z = 10: the far cube is drawn first, the near one after it, then reversed.
    await kiln.ok("create_gameobject", { name: "Near", type: "Cube", position: { z: 4 }, app: "godot" });
    await kiln.ok("create_gameobject", { name: "Far", type: "Cube", position: { z: -4 }, scale: { x: 3, y: 3, z: 3 }, app: "godot" });
    await kiln.ok("set_material", { target: "Near", material: "Green", app: "godot" });
    await kiln.ok("set_material", { target: "Far", material: "Blue", app: "godot" });
    await kiln.ok("set_camera", { position: { x: 0, y: 0, z: 10 }, rotation: { x: 0, y: 0, z: 0 }, app: "godot" });
    const shot = await kiln.ok("take_screenshot", { width: 320, height: 240, app: "godot" });
    const png = await fetchPng(shot.url);
    const centre = pixel(png, 160, 120);
    expect(centre.g).toBeGreaterThan(centre.b + 40);
    const edge = pixel(png, 160 + 40, 120); // beyond the near cube, inside the far one
    expect(edge.b).toBeGreaterThan(edge.g + 40);
  });

  it("renders a 100-object scene at 1920x1080", async () => {
    await kiln.ok("create_scene", { name: "Crowd" });
    for (let i = 0; i < 100; i++)
      await kiln.ok("create_gameobject", { name: `S${i}`, type: "Sphere", position: { x: (i % 10) - 4.5, y: Math.floor(i / 10) * 0.8, z: 2 } });
    const shot = await kiln.ok("take_screenshot", { width: 1920, height: 1080 });
    expect(shot.bytes).toBeGreaterThan(1000);
    const png = await fetchPng(shot.url);
    expect(png.width).toBe(1920);
  });
});
