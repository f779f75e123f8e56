/**
 * Asset pipeline at scale (issue "Asset pipeline"): transfer of a 1,000,000-triangle mesh from
 * Blender to Unity as glTF, FBX and OBJ, end to end (export from the scene, encode, write the file,
 * read it back, decode, import into the target scene with its durable log entry), in process with
 * a temporary KILN_HOME; and, for scale, `assimp export` converting the same file to the same format.
 * Targets: glTF <= 2 s, FBX <= 3 s, OBJ <= 3 s. Run: npx tsx tests/bench/pipeline-bench.ts
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../server/config";
import { encode } from "../../server/pipeline/formats";
import { importAssetFile } from "../../server/pipeline/import-file";
import { transferAsset } from "../../server/pipeline/transfer";
import { startKiln } from "../../server/runtime";
import { largeScene } from "../fixtures/formats/scene";
import { median } from "./bench-utils";

const TRIANGLES = Number(process.env.BENCH_TRIANGLES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ROOT = path.resolve(import.meta.dirname, "../..");
const TARGETS: Record<string, number> = { gltf: 2000, fbx: 3000, obj: 3000 };
/** assimp's exporter ids for the format Kiln writes. */
const ASSIMP: Record<string, { id: string; ext: string }> = { gltf: { id: "glb2", ext: "glb" }, fbx: { id: "fbx", ext: "fbx" }, obj: { id: "obj", ext: "obj" } };

const home = mkdtempSync(path.join(tmpdir(), "kiln-pipeline-bench-"));
const { DATABASE_URL: _ignored, ...env } = process.env;
const kiln = await startKiln(loadConfig({ ...env, KILN_HOME: home }, ROOT), ROOT);
/**
 * Puts a fresh 1M-triangle mesh into Blender's scene: every run needs new geometry, since meshes
 * are content-addressed and a second import of the same data would only reuse the stored record.
 */
async function freshSource(run: number): Promise<string> {
  const scene = largeScene(TRIANGLES);
  scene.nodes[0].name = `Big ${run}`;
  const p = scene.meshes[0].positions;
  for (let i = 1; i < p.length; i += 3) p[i] += run * 1e-3;
  const file = path.join(home, "assets", "bench", `big-${run}.glb`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, (await encode("gltf", scene, `big-${run}`)).files[0].bytes);
  const t = performance.now();
  const r = await importAssetFile(kiln, { app: "blender", path: file });
  sourceImports.push(performance.now() - t);
  return r.imported.root;
}
const sourceImports: number[] = [];

try {
  let run = 0;
  for (const format of (process.env.BENCH_FORMATS ?? "gltf,fbx,obj").split(",")) {
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
    const mb = (last!.file.bytes + last!.side_files.reduce((n, f) => n + f.bytes, 0)) / 1e6;
    console.log(
      `${format.padEnd(4)} transfer p50 ${kilnMs.toFixed(0)} ms of ${runs.map((r) => r.toFixed(0)).join("/")} (target <= ${TARGETS[format]} ms, ${kilnMs <= TARGETS[format] ? "met" : "MISSED"}), ` +
      `${mb.toFixed(1)} MB; stages of the last ${JSON.stringify(last!.timings_ms)}; ` +
      `assimp export same file → ${format} p50 ${assimpMs.toFixed(0)} ms; ratio Kiln/assimp ${(kilnMs / assimpMs).toFixed(2)}`,
    );
  }
  console.log(`(import_asset of each 1M-triangle source .glb into Blender's scene: p50 ${median(sourceImports).toFixed(0)} ms)`);
} finally {
  await kiln.workspace.flush();
  await kiln.db.$disconnect();
  rmSync(home, { recursive: true, force: true });
}
