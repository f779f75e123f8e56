/**
 * Exporting from a live application: the app writes the file with its own exporter (Blender's FBX,
 * glTF and OBJ exporters, with settings for the target app), into the transfer's folder; the rest
 * of the transfer (read back, decode, convert, import) is the same as for an embedded scene.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { KilnError } from "../errors";
import type { Kiln } from "../runtime";
import type { AppId } from "../scene/types";
import type { Asset } from "./assets";
import { sha256, type FileInfo } from "./files";
import type { TransferFormat } from "./formats";

/** The formats a live app exports itself; others are written by Kiln from its records. */
const APP_FORMATS: Partial<Record<AppId, TransferFormat[]>> = { blender: ["fbx", "gltf", "obj"] };

/** File extension of the main file a format's export writes. */
const EXTENSION: Record<string, string> = { fbx: ".fbx", gltf: ".glb", obj: ".obj" };

export function exportsItself(kiln: Kiln, app: AppId, format: TransferFormat): boolean {
  return kiln.live.isLive(app) && (APP_FORMATS[app] ?? []).includes(format);
}

/** Has the live app export `asset` into `dir`; returns the files it wrote, the main file first. */
export async function exportFromLiveApp(
  kiln: Kiln, app: AppId, asset: Asset, format: TransferFormat, targetApp: AppId, dir: string, stem: string,
  options: { apply_modifiers: boolean; include_animations: boolean },
): Promise<{ written: FileInfo[]; warnings: string[] }> {
  const main = path.join(dir, stem + EXTENSION[format]);
  const { result } = await kiln.live.request(app, "export", {
    asset: asset.root.name, scene: asset.scene.name, format, target_app: targetApp, path: main, options,
  });
  const warnings = Array.isArray((result as { warnings?: unknown }).warnings) ? ((result as { warnings: unknown[] }).warnings).map(String) : [];
  // Only what the app wrote into the transfer's own folder is read: the main file and its side files.
  const names = (await readdir(dir)).sort((a, b) => (a === path.basename(main) ? -1 : b === path.basename(main) ? 1 : a.localeCompare(b)));
  if (names[0] !== path.basename(main))
    throw new KilnError("APP_BAD_REPLY", `The live ${app} answered the export but wrote no ${path.basename(main)}.`, 502, { app });
  const written = await Promise.all(names.map(async (n) => {
    const bytes = await readFile(path.join(dir, n));
    return { path: path.join(dir, n), bytes: bytes.length, sha256: sha256(bytes) };
  }));
  return { written, warnings: [`exported by the live ${app}'s own ${format.toUpperCase()} exporter`, ...warnings] };
}

/** Live apps that import transferred files with their own importer (docs/bridges.md, "Godot"). */
const IMPORTS_FILES: AppId[] = ["godot"];

/**
 * Hands the transferred files to a live target that imports them itself: Godot copies them into its
 * project (res://kiln_imports/) and runs its own importer, so the asset is a resource of the project
 * as well as the objects Kiln's import put in the edited scene. Returns what to tell the caller.
 */
export async function importIntoLiveApp(kiln: Kiln, app: AppId, written: FileInfo[], transferId: string): Promise<string[]> {
  if (!IMPORTS_FILES.includes(app) || !kiln.live.isLive(app)) return [];
  const { result } = await kiln.live.request(app, "import", { path: written[0].path, side_files: written.slice(1).map((f) => f.path), folder: transferId });
  const resource = (result as { resource?: unknown }).resource;
  return typeof resource === "string" ? [`imported into the live ${app}'s project by its own importer as ${resource}`] : [];
}
