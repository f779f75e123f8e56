/**
 * transfer_asset end to end: export the asset from the source app's scene → encode it in the
 * format → write the file(s) under <KILN_HOME>/assets/<transfer_id>/ → read them back FROM DISK →
 * decode → convert into the target app's convention → add to the target scene as one logged
 * operation. The Transfer table records every accepted transfer (running, then succeeded or
 * failed); requests refused up front (unsupported path, unknown asset) are not recorded.
 */
import { kilnEvents } from "../events/bus";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { storageError } from "../db/storage-errors";
import { invalid, isKilnError, KilnError } from "../errors";
import type { Kiln } from "../runtime";
import type { AppId } from "../scene/types";
import { findAsset, type Asset } from "./assets";
import { exportFound, exportInputs, type ExportResult } from "./export-scene";
import { assetsDir, fileStem, type FileInfo } from "./files";
import type { TransferFormat } from "./formats";
import { applyImport, type ImportSummary } from "./importing";
import { checkTransfer } from "./paths";
import { activeTransfers } from "./registry";
import { exportFromLiveApp, exportsItself, importIntoLiveApp } from "./live-export";
import { mkdir } from "node:fs/promises";
import { pipelineJob, runInWorker } from "./worker/pool";
import { callerColumns } from "../teams/attribution";

export interface TransferRequest {
  source_app: AppId;
  target_app: AppId;
  asset: string;
  format: string;
  options: { apply_modifiers?: boolean; include_animations?: boolean };
}

export interface TransferResult {
  transfer_id: string;
  status: "succeeded";
  source_app: AppId;
  target_app: AppId;
  asset: string;
  format: TransferFormat;
  options: { apply_modifiers: boolean; include_animations: boolean };
  file: FileInfo;
  /** Files written besides the main one (OBJ's material library). */
  side_files: FileInfo[];
  exported: { objects: number; triangles: number };
  imported: ImportSummary;
  warnings: string[];
  duration_ms: number;
  /** Where the time went: export (scene → interchange), encode, write, read (back from disk), decode, import. */
  timings_ms: Record<"export" | "encode" | "write" | "read" | "decode" | "import", number>;
}

const unique = (xs: string[]) => [...new Set(xs)];

/** Runs a transfer (see the module comment). */
export async function transferAsset(kiln: Kiln, req: TransferRequest): Promise<TransferResult> {
  const started = performance.now();
  const format = checkTransfer(req.source_app, req.target_app, req.format);
  const asset = findAsset(kiln.workspace.state, req.source_app, req.asset);
  if (format === "obj" && !asset.objects.some((o) => o.kind === "mesh"))
    throw invalid("NOTHING_TO_TRANSFER", `OBJ carries only meshes, and "${asset.root.name}" has no mesh object; use another format.`, {
      field: "asset", asset: asset.root.name, format,
    });
  const options = { apply_modifiers: req.options.apply_modifiers ?? true, include_animations: req.options.include_animations ?? true };
  // A transfer refused as BUSY is refused before it is recorded, like any other refused request.
  return pipelineJob(() => runTransfer(kiln, req, format, asset, options, started));
}

async function runTransfer(
  kiln: Kiln, req: TransferRequest, format: TransferFormat, asset: Asset, options: TransferResult["options"], started: number,
): Promise<TransferResult> {
  const id = randomUUID();
  const base = { source_app: req.source_app, target_app: req.target_app, asset: req.asset, format };
  await kiln.db.transfer.create({
    data: { id, sourceApp: base.source_app, targetApp: base.target_app, asset: base.asset, format, options: JSON.stringify(options), status: "running", stage: "exporting", ...callerColumns() },
  });
  const announce = (action: "started" | "finished", status: string) =>
    kilnEvents().publish({ kind: "transfer", action, transfer_id: id, status, source_app: base.source_app, target_app: base.target_app, asset: base.asset });
  announce("started", "running");
  const active = activeTransfers();
  const progress = { transfer_id: id, ...base, started_at: new Date().toISOString(), stage: "exporting" };
  active.set(id, progress);
  // The stage is recorded as the transfer goes, so one cut off by a crash can be marked
  // interrupted where it was (server/ownership/interrupted.ts). Not awaited: the transfer goes
  // on; the final write waits for these, so they never land after it.
  let stageWrites: Promise<unknown> = Promise.resolve();
  const enter = (stage: string) => {
    progress.stage = stage;
    stageWrites = stageWrites.then(() => kiln.db.transfer.update({ where: { id }, data: { stage } })).catch(() => undefined);
  };
  let written: FileInfo[] = [];
  let mark = performance.now();
  const lap = () => {
    const now = performance.now(), ms = Math.round(now - mark);
    mark = now;
    return ms;
  };
  try {
    const dir = path.join(assetsDir(kiln.config.home), id);
    // Kiln's records describe the asset either way; a live app writes the file with its own exporter.
    const exportOptions = { applyModifiers: options.apply_modifiers, includeAnimations: options.include_animations };
    let exported: Omit<ExportResult, "scene">;
    let encoded: { warnings: string[]; timings_ms: { export: number; encode: number; write: number } };
    if (exportsItself(kiln, req.source_app, format)) {
      const { scene: _, ...counted } = exportFound(kiln.workspace.state, asset, exportOptions);
      exported = counted;
      const tExport = lap();
      await mkdir(dir, { recursive: true });
      const live = await exportFromLiveApp(kiln, req.source_app, asset, format, req.target_app, dir, fileStem(asset.root.name), options);
      written = live.written;
      encoded = { warnings: live.warnings, timings_ms: { export: tExport, encode: lap(), write: 0 } }; // the app encodes and writes in one step
    } else {
      // Exporting, encoding, writing, reading back, decoding and planning run on the worker pool (worker/pool.ts).
      const source = { ...exportInputs(kiln.workspace.state, asset), options: exportOptions };
      const worked = await runInWorker({ kind: "encode", format, source, baseName: fileStem(asset.root.name), dir });
      if ("writeError" in worked) {
        enter("writing");
        throw new Error(worked.writeError);
      }
      written = worked.files;
      encoded = worked;
      exported = worked.exported;
      lap();
    }
    enter("importing");
    // The target's objects come from the file on disk, not from the bytes still in memory.
    const side = Object.fromEntries(written.slice(1).map((f) => [path.basename(f.path), f.path]));
    const decoded = await runInWorker({ kind: "decode", format, main: written[0].path, side, app: req.target_app, groupName: asset.root.name });
    lap();
    const imported = await applyImport(kiln, "transfer_asset", req.target_app, decoded, {
      transfer_id: id, ...base, file: written[0].path,
    });
    // A live target that imports files itself (Godot) also gets the file, for its own importer.
    const appImport = await importIntoLiveApp(kiln, req.target_app, written, id);
    const timings = { ...encoded.timings_ms, read: decoded.timings_ms.read, decode: decoded.timings_ms.decode + decoded.timings_ms.plan, import: lap() };
    const warnings = unique([...exported.warnings, ...encoded.warnings, ...imported.warnings, ...appImport]);
    const result: TransferResult = {
      transfer_id: id, status: "succeeded", ...base, options, file: written[0], side_files: written.slice(1),
      exported: { objects: exported.objects, triangles: exported.triangles }, imported: imported.summary, warnings,
      duration_ms: Math.round(performance.now() - started), timings_ms: timings,
    };
    await stageWrites;
    await kiln.db.transfer.update({
      where: { id },
      data: {
        status: "succeeded", filePath: written[0].path, bytes: written[0].bytes, sha256: written[0].sha256,
        imported: JSON.stringify(result.imported), warnings: JSON.stringify(warnings), durationMs: result.duration_ms,
      },
    });
    announce("finished", "succeeded");
    return result;
  } catch (e) {
    const error = isKilnError(e) ? { code: e.code, message: e.message } : { code: "TRANSFER_FAILED", message: (e as Error).message ?? String(e) };
    const durationMs = Math.round(performance.now() - started);
    await stageWrites;
    await kiln.db.transfer.update({
      where: { id },
      data: {
        status: "failed", error: JSON.stringify({ ...error, stage: progress.stage }), durationMs,
        ...(written[0] ? { filePath: written[0].path, bytes: written[0].bytes, sha256: written[0].sha256 } : {}),
      },
    }).catch(() => undefined); // the original failure is what the caller must see
    announce("finished", "failed");
    if (isKilnError(e)) throw new KilnError(e.code, e.message, e.status, { ...e.details, transfer_id: id });
    const storage = storageError(e);
    if (storage) throw new KilnError(storage.code, storage.message, storage.status, { ...storage.details, transfer_id: id, stage: progress.stage });
    console.error("kiln: transfer failed", e);
    throw new KilnError("TRANSFER_FAILED", `The transfer failed while ${progress.stage}: ${error.message}`, 500, { transfer_id: id, stage: progress.stage });
  } finally {
    active.delete(id);
  }
}
