/**
 * take_screenshot rendered by live Godot (issue: "Live Godot"): the godot3 editor under xvfb-run
 * (Mesa llvmpipe) renders the edited scene from its camera through an offscreen Viewport. Slower than
 * the headless tests, so on its own; skipped by name where xvfb-run or godot3 is missing. The server
 * build's refusal (it has no renderer) is checked in live-godot.test.ts.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PNG } from "pngjs";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, startServer, type KilnServer } from "../helpers/server";
import { until } from "./live";
import { godotConnection, startLiveGodot, type LiveGodot } from "./live-godot";

const has = (cmd: string) => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;
const OUTPUT = path.join(ROOT, "tests/output/live-godot");

let kiln: KilnServer | undefined;
let godot: LiveGodot | undefined;

afterAll(async () => {
  await godot?.stop();
  await kiln?.stop();
});

describe.skipIf(!has("xvfb-run") || !has("godot3"))("live Godot renders under xvfb-run (godot3, Mesa)", () => {
  it("take_screenshot with app godot is Godot's render of the scene from its camera", async () => {
    mkdirSync(OUTPUT, { recursive: true });
    const project = mkdtempSync(path.join(tmpdir(), "kiln-godot-render-"));
    // KILN_GODOT names one program: a wrapper puts the editor on a virtual display.
    const wrapper = path.join(project, "godot-xvfb");
    writeFileSync(wrapper, `#!/bin/sh\nexec xvfb-run -a -s "-screen 0 1280x720x24" godot3 "$@"\n`);
    chmodSync(wrapper, 0o755);
    kiln = await startServer({ cwd: project });
    godot = startLiveGodot(kiln, path.join(project, "game"), { cwd: project, args: [], env: { KILN_GODOT: wrapper } });
    // The editor with a window on llvmpipe starts slowly (a new project is imported first).
    try {
      await until(async () => (await godotConnection(kiln!)) === "live", 180_000, "Godot to connect");
    } catch (e) {
      throw new Error(`${(e as Error).message}\n--- godot ---\n${godot.output().slice(-4000)}`);
    }
    console.log(`live godot (xvfb): connected ${Date.now() - godot.startedAt} ms after \`kiln godot\` was spawned`);

    await kiln.ok("create_material", { app: "godot", name: "Red", color: { r: 1, g: 0, b: 0, a: 1 } });
    await kiln.ok("create_gameobject", { app: "godot", name: "Box", type: "Cube", position: { x: 0, y: 0, z: 0 } });
    await kiln.ok("set_material", { app: "godot", target: "Box", material: "Red" });
    await kiln.ok("create_light", { app: "godot", name: "Sun", type: "Directional", intensity: 1, rotation: { x: -45, y: 30, z: 0 } });
    await kiln.ok("set_camera", { app: "godot", position: { x: 0, y: 2, z: 6 }, rotation: { x: -15, y: 0, z: 0 } });

    const shot = await kiln.ok("take_screenshot", { app: "godot", width: 320, height: 240 });
    expect(shot).toMatchObject({ width: 320, height: 240, renderer: expect.stringMatching(/^godot-gles/) });
    const png = PNG.sync.read(readFileSync(path.join(kiln.home, "screenshots", `${shot.id}.png`)));
    writeFileSync(path.join(OUTPUT, "screenshot.png"), PNG.sync.write(png));
    let red = 0;
    let centreRed = 0;
    for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      const [r, g, b] = [png.data[i], png.data[i + 1], png.data[i + 2]];
      if (r > 80 && r > 2 * g && r > 2 * b) {
        red++;
        if (Math.abs(x - 160) < 40 && Math.abs(y - 120) < 40) centreRed++;
      }
    }
    // The red cube fills the middle of the picture; the rest is Godot's default sky/background.
    expect(red).toBeGreaterThan(2000);
    expect(centreRed).toBeGreaterThan(1000);
    expect(red).toBeLessThan(320 * 240 * 0.8);
  });
});
