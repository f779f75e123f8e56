/**
 * take_screenshot draws base colour textures: glTF-Blender-IO's 09_texture_transform (a 2 m plane
 * whose white material carries a teal 8x8 grid image, repeated 4 x 5 times and turned by
 * KHR_texture_transform) comes in with import_asset, and the screenshot of it from above (and the working version's render) shows
 * the image's teal, with its lighter first column as stripes, where a flat material was grey-white.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer } from "../helpers/server";

let kiln: KilnServer;
beforeAll(async () => { kiln = await startServer(); });
afterAll(async () => { await kiln?.stop(); });

const FIXTURE = path.join(ROOT, "tests/fixtures/assets/09_texture_transform/09_texture_transform.gltf");

async function shot(name: string, url?: string): Promise<PNG> {
  const r = await fetch(`${kiln.url}${url ?? (await kiln.ok("take_screenshot", { width: 640, height: 480 })).url}`);
  expect(r.status).toBe(200);
  const bytes = Buffer.from(await r.arrayBuffer());
  mkdirSync(path.join(ROOT, "tests/output"), { recursive: true });
  writeFileSync(path.join(ROOT, "tests/output", name), bytes);
  return PNG.sync.read(bytes);
}

describe("take_screenshot with textures", () => {
  it("shows an imported glTF's base colour texture on its plane", async () => {
    await kiln.ok("create_scene", { name: "Textured" });
    const r = await kiln.ok("import_asset", { app: "unity", path: FIXTURE });
    expect(r.imported.objects).toBe(1);
    // From 2.2 m straight above, the 2 m plane fills the middle of the picture.
    await kiln.ok("set_camera", { position: { x: 0, y: 2.2, z: 0 }, rotation: { x: 90, y: 0, z: 0 } });
    const renders: [string, string | undefined][] = [
      ["screenshot-texture-transform.png", undefined],
      ["version-render-texture-transform.png", "/versions/working/render?app=unity&width=640&height=480"],
    ];
    for (const [file, url] of renders) {
      const png = await shot(file, url);
      expect([png.width, png.height]).toEqual([640, 480]);
      expectTexture(png);
    }
  });

  it("draws a JPEG texture given to create_material", async () => {
    // Left half orange, right half green; the new material has no texture transform, so the
    // plane (UVs 0..1 across it) shows each half once.
    const [w, h] = [64, 64];
    const pixels = Buffer.alloc(w * h * 4);
    for (let i = 0; i < w * h; i++) pixels.set(i % w < 32 ? [240, 120, 20, 255] : [30, 200, 60, 255], i * 4);
    const dir = path.join(kiln.home, "assets");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "halves.jpg");
    writeFileSync(file, jpeg.encode({ width: w, height: h, data: pixels }, 92).data);
    await kiln.ok("create_material", { app: "unity", name: "Halves", color: { r: 1, g: 1, b: 1, a: 1 }, textures: { base_color: { path: file } } });
    const plane = (await kiln.ok("list_objects", { app: "unity" })).objects.find((o: { type?: string; name: string }) => o.name !== "Main Camera" && o.type !== "Light")!;
    await kiln.ok("set_material", { app: "unity", target: plane.name, material: "Halves" });
    const png = await shot("screenshot-jpeg-texture.png");
    let orange = 0, green = 0;
    for (let y = 150; y < 330; y += 3) for (let x = 200; x < 440; x += 3) {
      const i = (y * png.width + x) * 4;
      const [r, g, b] = [png.data[i], png.data[i + 1], png.data[i + 2]];
      if (r > g + 40 && r > b + 80) orange++;
      if (g > r + 60 && g > b + 40) green++;
    }
    expect(orange).toBeGreaterThan(200);
    expect(green).toBeGreaterThan(200);
  });
});

/** The middle 40 % of the frame (all plane) shows the grid image's teal, with stripes. */
function expectTexture(png: PNG): void {
  let teal = 0, total = 0, minR = 255, maxR = 0;
  for (let y = 150; y < 330; y += 3) for (let x = 200; x < 440; x += 3) {
    const i = (y * png.width + x) * 4;
    const [red, g, b] = [png.data[i], png.data[i + 1], png.data[i + 2]];
    total++;
    if (g > red + 50 && b > red + 50) teal++;
    minR = Math.min(minR, red); maxR = Math.max(maxR, red);
  }
  expect(teal / total).toBeGreaterThan(0.9); // the grid's teal, not the flat white material
  expect(maxR - minR).toBeGreaterThan(25); // the lighter first column of each repeat shows as stripes
}
