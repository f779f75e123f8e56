/**
 * The pipeline's heavy work, as tasks a worker thread runs (pool.ts sends them, codec-worker.mjs
 * receives them): reading, hashing, decoding and planning a file; encoding and writing one. Each
 * task takes and returns plain, structured-cloneable data, and touches nothing of the service's
 * state (no database, no scene): the main thread checks paths before and applies the plan after.
 * Also callable in-process (the same functions), which is what unit tests and `inline` mode use.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AppId } from "../../scene/types";
import { readFiles, sha256, writeFiles, type FileInfo } from "../files";
import type { SceneState } from "../../scene/types";
import type { Asset } from "../assets";
import { exportFound, type ExportOptions, type ExportResult } from "../export-scene";
import { decode, encode, LimitError, type TransferFormat } from "../formats";
import { packLongStrings, unpackLongStrings, type PackedStrings } from "./long-strings";
import { planImport, type PlanResult } from "../import-scene";
import { prescanFile } from "../prescan-file";
import { MTL_TEXTURE_KEYS, parseMapLine } from "../formats/mtl";

/** Read, decode and plan: `files` are absolute paths, the first the main file; side files are found by `names`. */
export interface DecodeTask {
  kind: "decode";
  format: TransferFormat;
  main: string;
  /** Side files as the main file names them → absolute path (already checked by the caller). */
  side: Record<string, string>;
  app: AppId;
  groupName: string;
  /** The main file passed its pre-scan already (a scan task of this import ran it). */
  prescanned?: boolean;
}
export interface DecodeOutput extends PlanResult {
  file: FileInfo;
  timings_ms: { read: number; decode: number; plan: number };
}

/**
 * Export an asset from the records it needs (export-scene.ts, exportInputs), encode and write
 * under `dir`. The records travel as they are stored (base64 strings clone as one copy); turning
 * them into typed arrays happens here, off the event loop.
 */
export interface EncodeTask {
  kind: "encode"; format: TransferFormat; baseName: string; dir: string;
  source: { records: SceneState; asset: Asset; options: ExportOptions };
}
export type EncodeOutput =
  | { files: FileInfo[]; warnings: string[]; exported: Omit<ExportResult, "scene">; timings_ms: { export: number; encode: number; write: number } }
  /** Writing failed (the file system's error): the transfer records it at its own stage. */
  | { writeError: string };

/**
 * The side-file names a main file references: an OBJ's material libraries (with `library`, the
 * texture images an MTL names), a .gltf's buffers and images, a USDA's asset paths (textures).
 */
export interface ScanTask { kind: "scan"; format: TransferFormat; main: string; library?: boolean }

export type CodecTask = DecodeTask | EncodeTask | ScanTask;
export type CodecOutput<T extends CodecTask> = T extends DecodeTask ? DecodeOutput : T extends EncodeTask ? EncodeOutput : string[];

const since = (t: number) => Math.round(performance.now() - t);

async function runDecode(task: DecodeTask): Promise<DecodeOutput> {
  let t = performance.now();
  // Counted in constant memory first: a file past a limit is refused before it is read whole.
  if (!task.prescanned) await prescanFile(task.main, task.format);
  const files = await readFiles([task.main]);
  for (const [name, p] of Object.entries(task.side)) files.set(name, new Uint8Array(await readFile(p)));
  const mainName = path.basename(task.main);
  const main = files.get(mainName)!;
  const file = { path: task.main, bytes: main.length, sha256: sha256(main) };
  const read = since(t);
  t = performance.now();
  let decoded, planned;
  try {
    decoded = await decode(task.format, files, mainName);
  } catch (e) {
    throw readerFailure(e, task.format);
  }
  const decodeMs = since(t);
  t = performance.now();
  try {
    planned = planImport(task.app, decoded.scene, task.groupName);
  } catch (e) {
    throw readerFailure(e, task.format);
  }
  return { plan: planned.plan, warnings: [...decoded.warnings, ...planned.warnings], file, timings_ms: { read, decode: decodeMs, plan: since(t) } };
}

/**
 * A reader's failure as users see it: a broken limit and the readers' own sentences (plain
 * Errors) as they are; an engine error never (a TypeError inside three's FBXLoader on a malformed
 * ASCII FBX, "Cannot read properties of undefined (reading 'forEach')", or V8's "Cannot create a
 * string longer than ..."): those say the file is malformed, in words that hold for any of them.
 */
export function readerFailure(e: unknown, format: TransferFormat): Error {
  if (e instanceof LimitError) return e;
  if (e instanceof Error && e.constructor === Error && (e as { code?: unknown }).code === undefined) return e;
  return new Error(`${format}: the file is malformed: its structure is not one the ${format} reader can follow (a part it needs is missing or of the wrong kind)`);
}

async function runEncode(task: EncodeTask): Promise<EncodeOutput> {
  let t = performance.now();
  const { scene, ...exported } = exportFound(task.source.records, task.source.asset, task.source.options);
  const exportMs = since(t);
  t = performance.now();
  const encoded = await encode(task.format, scene, task.baseName);
  const encodeMs = since(t);
  t = performance.now();
  let files: FileInfo[];
  try {
    files = await writeFiles(task.dir, encoded.files);
  } catch (e) {
    return { writeError: (e as Error).message };
  }
  return { files, warnings: encoded.warnings, exported, timings_ms: { export: exportMs, encode: encodeMs, write: since(t) } };
}

/** `mtllib` names of an OBJ, read from the bytes line by line (a 300 MB OBJ is never made one string). */
function objLibraries(bytes: Uint8Array): string[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = [];
  for (let at = buf.indexOf("mtllib"); at >= 0; at = buf.indexOf("mtllib", at + 6)) {
    if (at > 0 && buf[at - 1] !== 10) continue; // not at the start of a line
    const end = buf.indexOf(10, at);
    const line = buf.subarray(at + 6, end < 0 ? buf.length : end).toString("utf8");
    if (!/^[ \t]/.test(line) || !line.trim()) continue;
    const names = line.trim();
    out.push(names, ...names.split(/\s+/));
  }
  return out;
}

/** The files an MTL's texture statements name, those the reader uses (the file name ends the line, after any options). */
function mtlImages(text: string): string[] {
  return text.split(/\r?\n/).flatMap((raw) => {
    const line = raw.trim();
    const key = line.split(/\s+/, 1)[0].toLowerCase();
    if (!MTL_TEXTURE_KEYS.has(key)) return [];
    const { file } = parseMapLine(line.slice(key.length));
    return file ? [file] : [];
  });
}

/** `@path@` values of a USDA's `asset` attributes, read from the bytes line by line. */
function usdAssets(bytes: Uint8Array): string[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: string[] = [];
  for (let at = buf.indexOf("asset"); at >= 0; at = buf.indexOf("asset", at + 5)) {
    const end = buf.indexOf(10, at);
    const line = buf.subarray(at, end < 0 ? buf.length : end).toString("utf8");
    const m = /^asset\s+[^=@]*=\s*@([^@]+)@/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

async function runScan(task: ScanTask): Promise<string[]> {
  // The first look at an import's main file: pre-scanned before it is read whole (prescan-file.ts).
  if (!task.library) await prescanFile(task.main, task.format);
  const bytes = new Uint8Array(await readFile(task.main));
  if (task.format === "obj" && task.library) return mtlImages(new TextDecoder().decode(bytes));
  if (task.format === "obj") return objLibraries(bytes);
  if (task.format === "usd") return usdAssets(bytes);
  if (task.format === "gltf" && task.main.toLowerCase().endsWith(".gltf")) {
    try {
      const json = JSON.parse(new TextDecoder().decode(bytes)) as { buffers?: { uri?: unknown }[]; images?: { uri?: unknown }[] };
      const withUri = [...(Array.isArray(json.buffers) ? json.buffers : []), ...(Array.isArray(json.images) ? json.images : [])];
      return withUri.flatMap((b) => (typeof b?.uri === "string" && !b.uri.startsWith("data:") ? [b.uri] : []));
    } catch {
      return []; // the decoder reports the broken JSON
    }
  }
  return [];
}

/** A task as posted to a worker: its long strings travel in a shared buffer (long-strings.ts). */
export interface PackedTask { task: CodecTask; packed: PackedStrings | null }
/** A worker's answer, its long strings (an import plan's mesh records) in a shared buffer too. */
export interface PackedOutput { value: unknown; packed: PackedStrings | null }

/** Runs a posted task in a worker thread. */
export async function runPackedTask({ task, packed }: PackedTask): Promise<PackedOutput> {
  return packLongStrings(await runCodecTask(unpackLongStrings(task, packed)));
}

/** Runs one task (in a worker, or in-process). */
export async function runCodecTask(task: CodecTask): Promise<unknown> {
  if (task.kind === "decode") return runDecode(task);
  if (task.kind === "encode") return runEncode(task);
  return runScan(task);
}
