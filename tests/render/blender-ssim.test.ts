/**
 * Kiln's renderer against Blender: each fixture scene (tests/fixtures/render/scenes.ts) rendered by
 * Kiln at 480x270 is compared with Blender 3.4 Cycles' render of the same scene exported through
 * Kiln's glTF pipeline (committed PNGs, made by make-blender-fixtures.ts). SSIM is ssim.js's mean
 * SSIM on luminance; the side-by-side images land in tests/output for a person to look at.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { compareWithBlender } from "../fixtures/render/compare";

const OUT = path.join(__dirname, "../output");

describe("Kiln's renderer against Blender Cycles", () => {
  // SSIM on these mostly flat images is lenient: the renderer before this work (flat Lambert, grey
  // background, no shadows or anti-aliasing) already scored 0.938 / 0.887 / 0.790. The bars sit
  // above those figures, and the README one far above the 0.85; measured 0.988 / 0.972 / 0.958.
  it.each([
    { scene: "readme", min: 0.97 },
    { scene: "materials", min: 0.95 },
    { scene: "spot", min: 0.93 },
  ])("renders the $scene scene with SSIM >= $min against Blender's render", ({ scene, min }) => {
    const { ssim, kiln, blender } = compareWithBlender(scene);
    mkdirSync(OUT, { recursive: true });
    const side = new PNG({ width: kiln.width * 2, height: kiln.height });
    for (let y = 0; y < kiln.height; y++) {
      kiln.data.copy(side.data, y * side.width * 4, y * kiln.width * 4, (y + 1) * kiln.width * 4);
      blender.data.copy(side.data, (y * side.width + kiln.width) * 4, y * blender.width * 4, (y + 1) * blender.width * 4);
    }
    writeFileSync(path.join(OUT, `ssim-${scene}-kiln-vs-blender.png`), PNG.sync.write(side));
    console.log(`SSIM ${scene}: ${ssim.toFixed(4)}`);
    expect(ssim).toBeGreaterThanOrEqual(min);
  });

  it.each(["readme", "materials", "spot"])("gets closer to Blender on %s with shadows, sky and anti-aliasing than without", (scene) => {
    const full = compareWithBlender(scene).ssim;
    const flat = compareWithBlender(scene, { shadows: false, supersample: 1, background: [0.19, 0.2, 0.23, 1], ambient: 0.3 }).ssim;
    expect(full).toBeGreaterThan(flat + 0.04);
  });
});
