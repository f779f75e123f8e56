/**
 * The spec's transfer path table, and the checks that turn any other request into 400
 * UNSUPPORTED_TRANSFER with what the path does support.
 */
import { invalid } from "../errors";
import { APPS, type AppId } from "../scene/types";
import type { TransferFormat } from "./formats";

/** Every supported (source, target) pair with its formats, in the spec's order. */
export const TRANSFER_PATHS: readonly { source: AppId; target: AppId; formats: readonly TransferFormat[] }[] = [
  { source: "blender", target: "unity", formats: ["fbx", "gltf", "obj", "usd"] },
  { source: "blender", target: "godot", formats: ["gltf", "obj", "fbx"] },
  { source: "unity", target: "blender", formats: ["fbx", "obj"] },
  { source: "godot", target: "blender", formats: ["gltf", "obj"] },
];

/** Other spellings users write for a format (file extensions), normalised to the format's name. */
const FORMAT_ALIASES: Record<string, TransferFormat> = { gltf: "gltf", glb: "gltf", fbx: "fbx", obj: "obj", usd: "usd", usda: "usd" };

/** A format name (any letter case, or an alias such as glb or usda) → TransferFormat, or null. */
export function normaliseFormat(format: string): TransferFormat | null {
  return FORMAT_ALIASES[format.trim().toLowerCase()] ?? null;
}

/** Formats a path supports ([] for a path not in the table). */
export function supportedFormats(source: AppId, target: AppId): readonly TransferFormat[] {
  return TRANSFER_PATHS.find((p) => p.source === source && p.target === target)?.formats ?? [];
}

/** Per target app, the formats an asset of `source` can go in (targets without a path left out). */
export function targetsOf(source: AppId): Partial<Record<AppId, TransferFormat[]>> {
  const out: Partial<Record<AppId, TransferFormat[]>> = {};
  for (const app of APPS) {
    const formats = supportedFormats(source, app);
    if (formats.length) out[app] = [...formats];
  }
  return out;
}

/** The requested format if the path supports it; otherwise 400 UNSUPPORTED_TRANSFER naming what is supported. */
export function checkTransfer(source: AppId, target: AppId, format: string): TransferFormat {
  const formats = supportedFormats(source, target);
  const wanted = normaliseFormat(format);
  if (wanted && formats.includes(wanted)) return wanted;
  const paths = TRANSFER_PATHS.map((p) => ({ source_app: p.source, target_app: p.target, formats: [...p.formats] }));
  if (!formats.length)
    throw invalid("UNSUPPORTED_TRANSFER", `There is no transfer path from ${source} to ${target}.`, {
      field: "target_app", source_app: source, target_app: target, supported_formats: [], supported_paths: paths,
    });
  throw invalid("UNSUPPORTED_TRANSFER", `${source} → ${target} does not support "${format}"; it supports ${formats.join(", ")}.`, {
    field: "format", source_app: source, target_app: target, format, supported_formats: [...formats],
  });
}
