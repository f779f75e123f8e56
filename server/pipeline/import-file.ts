/**
 * import_asset: brings an existing glTF/GLB, OBJ (+ MTL), FBX or USDA file into an app's scene.
 *
 * Only files inside the project folder or <KILN_HOME>/assets may be read. The requested path is
 * checked before the file system is touched (so nothing outside can even be probed for existence),
 * then resolved with realpath and checked again, so a symlink cannot lead out; side files (an
 * OBJ's material libraries, a .gltf's buffers) pass the same checks.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { invalid, notFound } from "../errors";
import type { Kiln } from "../runtime";
import type { AppId } from "../scene/types";
import { assetsDir, readFiles, sha256, type FileInfo } from "./files";
import { decode, type TransferFormat } from "./formats";
import { addImport, type ImportSummary } from "./importing";
import { normaliseFormat } from "./paths";

/** Largest file import_asset reads. */
export const MAX_IMPORT_BYTES = 1024 * 1024 * 1024;

const EXTENSIONS: Record<string, TransferFormat> = { ".glb": "gltf", ".gltf": "gltf", ".fbx": "fbx", ".obj": "obj", ".usda": "usd", ".usd": "usd" };
const SUPPORTED = ["gltf (.glb, .gltf)", "fbx (.fbx)", "obj (.obj + .mtl)", "usd (.usda, text .usd)"];

export interface ImportFileRequest { app: AppId; path: string; format?: string; scene?: string }

export interface ImportFileResult {
  app: AppId; scene: string; format: TransferFormat; file: FileInfo; side_files: string[];
  imported: ImportSummary; warnings: string[]; duration_ms: number;
}

const inside = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

async function realOrSelf(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}

/**
 * Where imports may read: the project folder and <KILN_HOME>/assets, each as configured and with
 * symlinks resolved. The rest of KILN_HOME (the database, screenshots) is not an asset even when
 * it lies inside the project folder, so it is refused too.
 */
interface Allowed { roots: string[]; test: (p: string) => boolean }

async function allowedRoots(kiln: Kiln): Promise<Allowed> {
  const both = async (p: string) => [...new Set([path.resolve(p), await realOrSelf(path.resolve(p))])];
  const [project, assets, home] = await Promise.all([both(kiln.config.projectDir), both(assetsDir(kiln.config.home)), both(kiln.config.home)]);
  const within = (roots: string[], p: string) => roots.some((r) => inside(r, p));
  return { roots: [...project, ...assets], test: (p) => within(assets, p) || (within(project, p) && !within(home, p)) };
}

const refuse = (requested: string, allowed: Allowed) =>
  invalid("PATH_NOT_ALLOWED", `"${requested}" is outside the project folder and the Kiln assets folder; import_asset reads only there.`, {
    field: "path", path: requested, allowed: allowed.roots,
  });

/** Resolves a path against `base` and checks it stays where imports may read, before and after realpath. */
async function resolveAllowed(requested: string, base: string, allowed: Allowed, field = "path"): Promise<string | null> {
  if (requested.includes("\0")) throw invalid("INVALID_PATH", "The path contains a NUL character.", { field });
  const candidate = path.resolve(base, requested);
  if (!allowed.test(candidate)) throw refuse(requested, allowed);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return null;
  }
  if (!allowed.test(real)) throw refuse(requested, allowed);
  return real;
}

function formatOf(requested: string | undefined, file: string): TransferFormat {
  if (requested !== undefined) {
    const f = normaliseFormat(requested);
    if (!f) throw invalid("UNSUPPORTED_FORMAT", `"${requested}" is not a format import_asset reads.`, { field: "format", format: requested, supported: SUPPORTED });
    return f;
  }
  const f = EXTENSIONS[path.extname(file).toLowerCase()];
  if (!f) throw invalid("UNSUPPORTED_FORMAT", `Cannot tell the format of "${path.basename(file)}" from its extension; pass format.`, { field: "format", supported: SUPPORTED });
  return f;
}

/** Names of the side files a main file references, as written in it (the decoders look them up so). */
function sideFileNames(format: TransferFormat, file: string, bytes: Uint8Array): string[] {
  if (format === "obj") {
    const text = new TextDecoder().decode(bytes);
    return [...text.matchAll(/^mtllib[ \t]+(.+?)\s*$/gm)].flatMap((m) => [m[1], ...m[1].split(/\s+/)]);
  }
  if (format === "gltf" && file.toLowerCase().endsWith(".gltf")) {
    try {
      const json = JSON.parse(new TextDecoder().decode(bytes)) as { buffers?: { uri?: string }[]; images?: { uri?: string }[] };
      return [...(json.buffers ?? []), ...(json.images ?? [])].flatMap((b) => (b.uri && !b.uri.startsWith("data:") ? [b.uri] : []));
    } catch {
      return []; // the decoder reports the broken JSON
    }
  }
  return [];
}

/** A relative URI as a file path (percent-escapes decoded; a malformed escape is kept as written). */
function uriPath(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/** Runs import_asset (see the module comment). */
export async function importAssetFile(kiln: Kiln, req: ImportFileRequest): Promise<ImportFileResult> {
  const started = performance.now();
  const allowed = await allowedRoots(kiln);
  const real = await resolveAllowed(req.path, kiln.config.projectDir, allowed);
  if (!real) throw notFound("FILE_NOT_FOUND", `There is no file "${req.path}".`, { field: "path", path: req.path });
  // The path is checked above to stay inside the allowed folders; the comment stops Turbopack
  // from tracing (and warning about) the whole project for this call.
  const info = await stat(/* turbopackIgnore: true */ real);
  if (!info.isFile()) throw invalid("NOT_A_FILE", `"${req.path}" is not a file.`, { field: "path", path: req.path });
  if (info.size > MAX_IMPORT_BYTES) throw invalid("FILE_TOO_LARGE", `"${req.path}" is ${info.size} bytes; import_asset reads at most ${MAX_IMPORT_BYTES}.`, { field: "path", limit: MAX_IMPORT_BYTES });
  const format = formatOf(req.format, real);
  const files = await readFiles([real]);
  const main = files.get(path.basename(real))!;
  if (format === "usd" && new TextDecoder().decode(main.subarray(0, 8)).startsWith("PXR-USDC"))
    throw invalid("UNSUPPORTED_FORMAT", "Binary USD (usdc) is not supported; export the stage as USDA text.", { field: "path", supported: SUPPORTED });

  const side: string[] = [];
  for (const name of new Set(sideFileNames(format, real, main))) {
    const resolved = await resolveAllowed(uriPath(name), path.dirname(real), allowed, "path").catch((e) => {
      throw invalid("PATH_NOT_ALLOWED", `"${path.basename(real)}" references "${name}", which is outside the folders import_asset reads.`, { ...(e.details ?? {}), field: "path", reference: name });
    });
    if (!resolved || !(await stat(resolved)).isFile()) continue; // the decoder warns about what is missing
    files.set(name, (await readFiles([resolved])).get(path.basename(resolved))!);
    side.push(resolved);
  }

  let decoded;
  try {
    decoded = await decode(format, files, path.basename(real));
  } catch (e) {
    throw invalid("ASSET_UNREADABLE", `"${req.path}" could not be read as ${format}: ${(e as Error).message}`, { field: "path", path: req.path, format });
  }
  const stem = path.basename(real, path.extname(real));
  const imported = await addImport(kiln, "import_asset", req.app, decoded.scene, stem, { path: real, format }, req.scene);
  return {
    app: req.app, scene: imported.summary.scene, format, file: { path: real, bytes: main.length, sha256: sha256(main) }, side_files: side,
    imported: imported.summary, warnings: [...new Set([...decoded.warnings, ...imported.warnings])], duration_ms: Math.round(performance.now() - started),
  };
}
