/**
 * Real-asset pipeline at scale (issue 15): a 1,000,000-triangle mesh with two UV sets, normals,
 * skin weights (bound to one joint) and a 4096×4096 PNG base colour texture, transferred Blender →
 * Unity end to end (export, encode, write, read back, decode, import with its durable log entry)
 * as glTF and FBX, in process with a temporary KILN_HOME; peak RSS of the process (worker threads
 * included); and `assimp export` of the same file to the same format, as a ratio.
 * Targets: glTF <= 2 s, FBX <= 3 s, peak RSS <= 1.5 GB. Run: npx tsx tests/bench/assets-bench.ts
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PNG } from "pngjs";
import { loadConfig } from "../../server/config";
import { encode } from "../../server/pipeline/formats";
import { importAssetFile } from "../../server/pipeline/import-file";
import { transferAsset } from "../../server/pipeline/transfer";
import { startKiln } from "../../server/runtime";
import { largeScene } from "../fixtures/formats/scene";
import { median } from "./bench-utils";

const TRIANGLES = Number(process.env.BENCH_TRIANGLES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SIZE = Number(process.env.BENCH_TEXTURE ?? 4096);
const ROOT = path.resolve(import.meta.dirname, "../..");
const TARGETS: Record<string, number> = { gltf: 2000, fbx: 3000 };
const ASSIMP: Record<string, { id: string; ext: string }> = { gltf: { id: "glb2", ext: "glb" }, fbx: { id: "fbx", ext: "fbx" } };

/** A SIZE² PNG with a pattern (so it does not compress to nothing). */
function texture(): Uint8Array {
  const png = new PNG({ width: SIZE, height: SIZE });
  for (let i = 0; i < SIZE * SIZE; i++) {
    const x = i % SIZE, y = (i / SIZE) | 0;
    png.data[i * 4] = (x * 7) & 255; png.data[i * 4 + 1] = (y * 3) & 255; png.data[i * 4 + 2] = (x ^ y) & 255; png.data[i * 4 + 3] = 255;
  }
  return new Uint8Array(PNG.sync.write(png));
}
const image = texture();

const home = mkdtempSync(path.join(tmpdir(), "kiln-assets-bench-"));
const { DATABASE_URL: _ignored, ...env } = process.env;
const kiln = await startKiln(loadConfig({ ...env, KILN_HOME: home }, ROOT), ROOT);

/** A fresh source each run (meshes are content-addressed: the same data would only be reused). */
async function freshSource(run: number): Promise<string> {
  const scene = largeScene(TRIANGLES);
  scene.nodes[0].name = `Rigged ${run}`;
  const m = scene.meshes[0];
  for (let i = 1; i < m.positions.length; i += 3) m.positions[i] += run * 1e-3;
  const n = m.positions.length / 3;
  const uv0 = new Float32Array(n * 2), uv1 = new Float32Array(n * 2);
  for (let v = 0; v < n; v++) {
    uv0[v * 2] = m.positions[v * 3] * 0.01; uv0[v * 2 + 1] = m.positions[v * 3 + 2] * 0.01;
    uv1[v * 2] = (v % 1024) / 1024; uv1[v * 2 + 1] = ((v / 1024) | 0) / 1024;
  }
  const joints = new Uint16Array(n * 4), weights = new Float32Array(n * 4);
  for (let v = 0; v < n; v++) weights[v * 4] = 1;
  Object.assign(m, { uvs: [uv0, uv1], joints, weights });
  scene.images = [{ name: "albedo.png", mimeType: "image/png", bytes: image }];
  scene.materials[0].textures = { baseColor: { image: 0, uv: 0 } };
  scene.nodes.push({ name: `Bone ${run}`, parent: 0, translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: [1, 1, 1] });
  const ibm = new Float32Array(16);
  for (let d = 0; d < 4; d++) ibm[d * 5] = 1;
  scene.skins = [{ name: "Skin", joints: [1], inverseBindMatrices: ibm }];
  scene.nodes[0].skin = 0;
  const file = path.join(home, "assets", "bench", `rigged-${run}.glb`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, (await encode("gltf", scene, `rigged-${run}`)).files[0].bytes);
  return (await importAssetFile(kiln, { app: "blender", path: file })).imported.root;
}

try {
  let run = 0;
  for (const format of (process.env.BENCH_FORMATS ?? "gltf,fbx").split(",")) {
    const runs: number[] = [];
    let last;
    for (let i = 0; i < RUNS; i++) {
      const asset = await freshSource(run++);
      const t = performance.now();
      last = await transferAsset(kiln, { source_app: "blender", target_app: "unity", asset, format, options: {} });
      runs.push(performance.now() - t);
      if (last.imported.triangles !== TRIANGLES) throw new Error(`${format}: ${last.imported.triangles} triangles arrived`);
    }
    const kilnMs = median(runs);
    const out = path.join(home, `assimp-out.${ASSIMP[format].ext}`);
    const assimpRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const r = spawnSync("assimp", ["export", last!.file.path, out, `-f${ASSIMP[format].id}`], { encoding: "utf8", maxBuffer: 64 << 20 });
      assimpRuns.push(performance.now() - t);
      if (r.error || r.status !== 0) throw new Error(`assimp export failed: ${r.error?.message ?? r.stderr}`);
    }
    const assimpMs = median(assimpRuns);
    console.log(
      `${format.padEnd(4)} transfer p50 ${kilnMs.toFixed(0)} ms of ${runs.map((r) => r.toFixed(0)).join("/")} (target <= ${TARGETS[format]} ms, ${kilnMs <= TARGETS[format] ? "met" : "MISSED"}), ` +
      `${(last!.file.bytes / 1e6).toFixed(1)} MB; stages ${JSON.stringify(last!.timings_ms)}; warnings ${last!.warnings.length}; ` +
      `assimp export same file → ${format} p50 ${assimpMs.toFixed(0)} ms; ratio Kiln/assimp ${(kilnMs / assimpMs).toFixed(2)}`,
    );
  }
  const rssMb = process.resourceUsage().maxRSS / 1024;
  console.log(`peak RSS ${rssMb.toFixed(0)} MB (target <= 1536 MB, ${rssMb <= 1536 ? "met" : "MISSED"}); texture ${SIZE}² PNG ${(image.length / 1e6).toFixed(1)} MB`);
} finally {
  await kiln.workspace.flush();
  await kiln.db.$disconnect();
  rmSync(home, { recursive: true, force: true });
}
