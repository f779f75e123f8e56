/**
 * Kiln's renderer puts an imported texture where Blender does: glTF-Blender-IO's
 * 09_texture_transform (a 2 m plane, a teal grid image whose lighter first column repeats 4 x 5
 * times, turned 0.3 rad by KHR_texture_transform) is imported with the pure scene core, drawn by
 * Kiln's software renderer from straight above, and rendered by real Blender 3.4 (Cycles) from the
 * same camera. The lighter column makes slanted stripes; along three rows, each stripe Kiln draws
 * lies within a few pixels of one in Blender's render (a flipped V, a mirrored U or a rotation the
 * other way would move them by tens). Both images land in tests/output/texture-placement.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { applyOperation } from "../../server/scene/apply";
import { applyChanges } from "../../server/scene/changes";
import { renderScene } from "../../server/scene/render";
import { buildRenderInput, textureImageIds } from "../../server/scene/render-view";
import { initialState } from "../../server/scene/state";
import type { ImageRecord, SceneEntity } from "../../server/scene/types";
import { planImport } from "../../server/pipeline/import-scene";
import { decodeTexture } from "../../server/tools/editor/texture-images";
import { ASSETS_DIR, readAsset } from "../fixtures/assets/read";
import { runBlender } from "./blender";

const OUT = path.join(__dirname, "../output/texture-placement");
const W = 640, H = 480, HEIGHT = 2.2;

/** x of each bright stripe along row y (local maxima of a 7-pixel mean, well above the row's mean), within the plane. */
function stripes(png: { width: number; data: Uint8Array | Buffer }, y: number): number[] {
  const row: number[] = [];
  for (let x = 0; x < png.width; x++) { const i = (y * png.width + x) * 4; row.push((png.data[i] + png.data[i + 1] + png.data[i + 2]) / 3); }
  const smooth = row.map((_, i) => { let s = 0, n = 0; for (let k = -3; k <= 3; k++) if (row[i + k] !== undefined) { s += row[i + k]; n++; } return s / n; });
  const x0 = 140, x1 = 500; // inside the plane's square
  const mean = smooth.slice(x0, x1).reduce((a, b) => a + b, 0) / (x1 - x0);
  const peaks: number[] = [];
  for (let x = x0; x < x1; x++) if (smooth[x] > mean + 15 && smooth[x] >= smooth[x - 1] && smooth[x] >= smooth[x + 1] && (!peaks.length || x - peaks[peaks.length - 1] > 20)) peaks.push(x);
  return peaks;
}

describe("texture placement against Blender", () => {
  it("draws 09_texture_transform's stripes where Blender does", async () => {
    mkdirSync(OUT, { recursive: true });
    const name = "09_texture_transform";
    const state = new Map(initialState()) as Map<string, SceneEntity>;
    const planned = applyOperation(state, { tool: "import_asset", app: "blender", params: { plan: planImport("blender", (await readAsset(name)).scene, name).plan } });
    applyChanges(state, planned.changes);
    const input = buildRenderInput(state, "blender", W, H);
    // Blender's camera in canonical (glTF) space: above the origin, looking down, screen up +Z.
    input.camera = { eye: [0, HEIGHT, 0], forward: [0, -1, 0], up: [0, 0, 1], fovYDeg: 60, near: 0.05, far: 100 };
    input.background = [1, 1, 1, 1];
    const ids = textureImageIds(input);
    expect(ids).toHaveLength(1);
    const record = state.get(ids[0]) as ImageRecord;
    input.images = { [ids[0]]: decodeTexture(Buffer.from(record.data, "base64"), record.mimeType)! };
    const kiln = renderScene(input);
    const png = new PNG({ width: W, height: H });
    png.data = Buffer.from(kiln.data);
    writeFileSync(path.join(OUT, "kiln.png"), PNG.sync.write(png));

    const file = runBlender<string>("render_top.py", [path.join(ASSETS_DIR, name, `${name}.gltf`), path.join(OUT, "blender.png"), String(HEIGHT), String(W), String(H)]);
    const blender = PNG.sync.read(readFileSync(file));
    for (const y of [100, 240, 380]) {
      const ours = stripes(png, y), theirs = stripes(blender, y);
      expect(ours.length, `row ${y}: ${ours} vs ${theirs}`).toBeGreaterThanOrEqual(3);
      for (const x of ours) expect(Math.min(...theirs.map((t) => Math.abs(t - x))), `row ${y}: ${ours} vs Blender ${theirs}`).toBeLessThanOrEqual(6);
    }
  });
});
