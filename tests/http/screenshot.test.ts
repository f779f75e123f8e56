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

/** Linear-light luminance of an sRGB pixel (what "brighter" means physically). */
const luminance = (p: { r: number; g: number; b: number }) => {
  const lin = (c: number) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(p.r) + 0.7152 * lin(p.g) + 0.0722 * lin(p.b);
};
const meanLuminance = (png: PNG, x0: number, x1: number, y0: number, y1: number) => {
  let sum = 0, n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++, n++) sum += luminance(pixel(png, x, y));
  return sum / n;
};

describe("take_screenshot off the event loop", () => {
  it("keeps answering other calls while a 1920x1080 frame renders", async () => {
    await kiln.ok("create_scene", { name: "Busy" });
    for (let i = 0; i < 30; i++) await kiln.ok("create_gameobject", { name: `B${i}`, type: "Sphere", position: { x: (i % 6) - 2.5, y: 0.5, z: Math.floor(i / 6) } });
    await kiln.ok("take_screenshot", { width: 64, height: 64 }); // the worker is started and warm
    let done = false;
    const started = performance.now();
    const frame = kiln.ok("take_screenshot", { width: 1920, height: 1080 }).finally(() => { done = true; });
    const waits: number[] = [];
    while (!done) {
      const t = performance.now();
      await kiln.ok("get_scene", {});
      waits.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
    await frame;
    const total = performance.now() - started;
    waits.sort((a, b) => a - b);
    const median = waits[Math.floor(waits.length / 2)], max = waits[waits.length - 1];
    console.log(`during a ${total.toFixed(0)} ms frame: ${waits.length} get_scene calls, median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    // The mechanism, not a latency: a frame on the request thread would hold every call for the
    // whole frame, so at most one get_scene could be answered before it ends; a loaded machine only
    // lengthens the frame and adds answers. The latencies are printed above, not asserted.
    expect(waits.length).toBeGreaterThan(3);
  });
});

describe("take_screenshot of README's scene (issue 16's acceptance)", () => {
  // Exactly README's "Try the tools" calls (Unity app).
  async function readmeScene(scene: string): Promise<void> {
    await kiln.ok("create_scene", { name: scene });
    await kiln.ok("create_gameobject", { name: "Ground", type: "Plane", scale: { x: 50, y: 1, z: 50 } });
    await kiln.ok("create_light", { name: "Sun", type: "Directional", intensity: 1.2, rotation: { x: 50, y: -30, z: 0 } });
    await kiln.ok("set_camera", { position: { x: 0, y: 3, z: -8 }, rotation: { x: 15, y: 0, z: 0 } });
    await kiln.call("create_material", { name: "Red", color: { r: 1, g: 0, b: 0, a: 1 } }); // 409 on the second scene: materials are per app
    await kiln.ok("create_gameobject", { name: "Box", type: "Cube", position: { x: 0, y: 0.5, z: 0 } });
    await kiln.ok("set_material", { target: "Box", material: "Red" });
  }
  const shot = async (params: Record<string, unknown> = {}) => fetchPng((await kiln.ok("take_screenshot", { width: 1280, height: 720, ...params })).url);
  // Where the cube's shadow can show beside it (left of the cube with README's sun, right when mirrored).
  const LEFT = [575, 598, 400, 430] as const, RIGHT = [682, 705, 400, 430] as const, OPEN_GROUND = [480, 540, 400, 430] as const;

  beforeAll(async () => { await readmeScene("Readme"); });

  // The issue asks for > 1,000 distinct colours. The triangular dither gives a flat-lit plane, a
  // smooth sky and one cube ~730; the cube's ambient occlusion and red bounce on the ground
  // (occlusion.ts, as in Blender's render) give the rest.
  it("has over 1,000 distinct colours and under 1 % of pixels clipped (0 or 255) in any channel", async () => {
    const png = await shot();
    const colours = new Set<number>();
    const clipped = [0, 0, 0];
    for (let i = 0; i < png.data.length; i += 4) {
      colours.add((png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2]);
      for (let c = 0; c < 3; c++) if (png.data[i + c] === 0 || png.data[i + c] === 255) clipped[c]++;
    }
    const n = png.width * png.height;
    console.log(`README scene: ${colours.size} colours, clipped r/g/b ${clipped.map((c) => ((100 * c) / n).toFixed(3)).join(" / ")} %`);
    expect(colours.size).toBeGreaterThan(1000);
    for (const c of clipped) expect(c / n).toBeLessThan(0.01);
  });

  it("tells the cube's top from its front (both sunlit, at different angles)", async () => {
    const png = await shot();
    const top = pixel(png, 640, 350), front = pixel(png, 640, 400);
    expect(Math.abs(top.r - front.r) + Math.abs(top.g - front.g) + Math.abs(top.b - front.b)).toBeGreaterThan(30);
    expect(luminance(top)).toBeGreaterThan(luminance(front)); // n.l 0.77 against 0.56
  });

  it("shows a sunlit face at least twice as bright as a face in shade", async () => {
    // Same scene seen from the front left: the front face (-Z, sunlit) and the left face (-X, away from the sun).
    await kiln.ok("set_camera", { position: { x: -3, y: 2.5, z: -5 }, rotation: { x: 18.9, y: 31, z: 0 } });
    try {
      const png = await shot();
      let left = -1, right = -1;
      for (let x = 0; x < png.width; x++) { const p = pixel(png, x, 370); if (p.r > p.g + 60) { if (left < 0) left = x; right = x; } }
      expect(right - left).toBeGreaterThan(80);
      const shaded = meanLuminance(png, left + 8, left + 30, 360, 380), lit = meanLuminance(png, right - 40, right - 10, 360, 380);
      console.log(`sunlit / shaded face luminance: ${(lit / shaded).toFixed(2)}`);
      expect(lit / shaded).toBeGreaterThan(2);
    } finally {
      await kiln.ok("set_camera", { position: { x: 0, y: 3, z: -8 }, rotation: { x: 15, y: 0, z: 0 } });
    }
  });

  it("casts the cube's shadow on the ground beside it, darker than lit ground, and moves it with the sun", async () => {
    const before = await shot();
    const lit = meanLuminance(before, ...OPEN_GROUND);
    expect(meanLuminance(before, ...LEFT)).toBeLessThan(lit * 0.75);
    expect(meanLuminance(before, ...RIGHT)).toBeGreaterThan(lit * 0.95);
    await kiln.ok("set_transform", { target: "Sun", rotation: { x: 50, y: 30, z: 0 } });
    try {
      const after = await shot();
      expect(meanLuminance(after, ...RIGHT)).toBeLessThan(lit * 0.75);
      expect(meanLuminance(after, ...LEFT)).toBeGreaterThan(lit * 0.95);
    } finally {
      await kiln.ok("set_transform", { target: "Sun", rotation: { x: 50, y: -30, z: 0 } });
    }
  });

  it("draws overlays only when asked, and refuses unknown ones", async () => {
    const plain = await shot();
    const over = await shot({ overlay: ["grid", "axes", "labels"] });
    let changed = 0;
    for (let i = 0; i < plain.data.length; i += 4) if (plain.data[i] !== over.data[i]) changed++;
    expect(changed).toBeGreaterThan(2000);
    // The label "Box" is white text with a dark outline just above the cube.
    let white = 0;
    for (let y = 300; y < 345; y++) for (let x = 600; x < 680; x++) { const p = pixel(over, x, y); if (p.r === 255 && p.g === 255 && p.b === 255) white++; }
    expect(white).toBeGreaterThan(20);
    const bad = await kiln.call("take_screenshot", { width: 64, height: 64, overlay: ["grid", "wireframe"] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("overlay");
  });
});

