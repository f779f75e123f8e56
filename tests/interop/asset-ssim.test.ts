/**
 * What an artist sees: each textured or coloured real Blender asset (tests/fixtures/assets),
 * imported into Kiln's Blender scene and transferred to Unity, is written as the file Kiln hands
 * Unity (glTF, FBX); real Blender 3.4 renders the original and Kiln's files with Cycles from the
 * same camera, and the renders match (mean SSIM on luminance, ssim.js). Renders land in
 * tests/output/asset-ssim for a person to look at.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PNG } from "pngjs";
import { ssim } from "ssim.js";
import { describe, expect, it } from "vitest";
import { applyOperation } from "../../server/scene/apply";
import { applyChanges } from "../../server/scene/changes";
import { initialState } from "../../server/scene/state";
import type { SceneEntity } from "../../server/scene/types";
import { exportAsset } from "../../server/pipeline/export-scene";
import { encode, type TransferFormat } from "../../server/pipeline/formats";
import { planImport } from "../../server/pipeline/import-scene";
import { ASSETS_DIR, readAsset } from "../fixtures/assets/read";
import { runBlender } from "./blender";

const OUT = path.join(__dirname, "../output/asset-ssim");
const FIXTURES = ["09_texture_transform", "12_orm_two_uvmaps", "22_vertex_color", "22_material_slot_not_merge"];
const FORMATS: TransferFormat[] = (process.env.KILN_SSIM_FORMATS ?? "gltf,fbx").split(",") as TransferFormat[];
const MIN_SSIM = 0.98;

const read = (file: string) => PNG.sync.read(readFileSync(file));
const score = (a: PNG, b: PNG) => ssim({ data: new Uint8ClampedArray(a.data), width: a.width, height: a.height }, { data: new Uint8ClampedArray(b.data), width: b.width, height: b.height }).mssim;

describe("real assets look the same in Blender after Kiln's transfer", () => {
  it("renders each fixture's original and Kiln's files alike", async () => {
    mkdirSync(OUT, { recursive: true });
    const files: string[] = [];
    const labels: string[] = [];
    for (const name of FIXTURES) {
      files.push(path.join(ASSETS_DIR, name, `${name}.gltf`));
      labels.push(`${name} original`);
      const state = new Map(initialState()) as Map<string, SceneEntity>;
      const src = (await readAsset(name)).scene;
      const planned = applyOperation(state, { tool: "import_asset", app: "blender", params: { plan: planImport("blender", src, name).plan } });
      applyChanges(state, planned.changes);
      const root = (planned.result as { roots: string[] }).roots[0];
      const exported = exportAsset(state, "blender", root, { applyModifiers: true, includeAnimations: true });
      for (const format of FORMATS) {
        const dir = path.join(OUT, `${name}-${format}`);
        mkdirSync(dir, { recursive: true });
        const encoded = await encode(format, exported.scene, name);
        for (const f of encoded.files) writeFileSync(path.join(dir, f.name), f.bytes);
        files.push(path.join(dir, encoded.files[0].name));
        labels.push(`${name} ${format}`);
      }
    }
    const renders = runBlender<string[]>("render_assets.py", [OUT, ...files]).map(read);
    const per = 1 + FORMATS.length;
    const scores: string[] = [];
    for (let i = 0; i < renders.length; i += per) {
      const original = renders[i];
      const side = new PNG({ width: original.width * per, height: original.height });
      for (let k = 0; k < per; k++) PNG.bitblt(renders[i + k], side, 0, 0, original.width, original.height, k * original.width, 0);
      writeFileSync(path.join(OUT, `${FIXTURES[i / per]}.png`), PNG.sync.write(side));
      for (let k = 1; k < per; k++) scores.push(`${labels[i + k]}: ${score(original, renders[i + k]).toFixed(4)}`);
    }
    console.log(`SSIM against the original's render:\n  ${scores.join("\n  ")}`);
    for (const s of scores) expect(Number(s.split(": ")[1]), s).toBeGreaterThanOrEqual(MIN_SSIM);
  });
});
