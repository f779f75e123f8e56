/**
 * import_asset: brings an existing glTF/GLB, OBJ (+ MTL), FBX or USDA file into an app's scene.
 *
 * Only files inside the project folder or <KILN_HOME>/assets may be read. The requested path is
 * checked before the file system is touched (so nothing outside can even be probed for existence),
 * then resolved with realpath and checked again, so a symlink cannot lead out; side files (an
 * OBJ's material libraries, a .gltf's buffers) pass the same checks. Texture images named by an
 * MTL or a USDA are read only from beside the file (`texturesBeside`).
 */
import { open, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { invalid, KilnError, notFound } from "../errors";
import type { Kiln } from "../runtime";
import type { AppId } from "../scene/types";
import { assetsDir, type FileInfo } from "./files";
import { LIMITS, type TransferFormat } from "./formats";
import { applyImport, type ImportSummary } from "./importing";
import { pipelineJob, runInWorker } from "./worker/pool";
import { normaliseFormat } from "./paths";
import { besideOnly } from "./formats/side-images";
import { HEAD_BYTES, sniff, type Sniffed } from "./formats/sniff";

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

export async function allowedRoots(kiln: Kiln): Promise<Allowed> {
  const both = async (p: string) => [...new Set([path.resolve(p), await realOrSelf(path.resolve(p))])];
  const [project, assets, home] = await Promise.all([both(kiln.config.projectDir), both(assetsDir(kiln.config.home)), both(kiln.config.home)]);
  const within = (roots: string[], p: string) => roots.some((r) => inside(r, p));
  return { roots: [...project, ...assets], test: (p) => within(assets, p) || (within(project, p) && !within(home, p)) };
}

const refuse = (requested: string, allowed: Allowed, field: string) =>
  invalid("PATH_NOT_ALLOWED", `"${requested}" is outside the project folder and the Kiln assets folder; Kiln reads files only there.`, {
    field, path: requested, allowed: allowed.roots,
  });

/** Resolves a path against `base` and checks it stays where imports may read, before and after realpath. */
export async function resolveAllowed(requested: string, base: string, allowed: Allowed, field = "path"): Promise<string | null> {
  if (requested.includes("\0")) throw invalid("INVALID_PATH", "The path contains a NUL character.", { field });
  const candidate = path.resolve(base, requested);
  if (!allowed.test(candidate)) throw refuse(requested, allowed, field);
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    return null;
  }
  if (!allowed.test(real)) throw refuse(requested, allowed, field);
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

/** A relative URI as a file path (percent-escapes decoded; a malformed escape is kept as written). */
function uriPath(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/** First bytes of a file (formats/sniff.ts), without reading the rest. */
async function head(file: string, n: number): Promise<Uint8Array> {
  const handle = await open(file, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(n), 0, n, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * What the file's first bytes say it is, as `format`: refused unless it starts like that format
 * (the header or magic, before the file is read), and the size cap of its actual encoding
 * (an ASCII FBX gets its own, a .gltf's JSON the text cap, whatever the extension).
 */
async function sniffFile(req: ImportFileRequest, real: string, format: TransferFormat, size: number): Promise<Sniffed> {
  const sniffed = sniff(format, await head(real, HEAD_BYTES), size);
  if ("usdc" in sniffed) throw invalid("UNSUPPORTED_FORMAT", "Binary USD (usdc) is not supported; export the stage as USDA text.", { field: "path", supported: SUPPORTED });
  if ("jsonChunk" in sniffed)
    throw invalid("FILE_TOO_LARGE", `"${req.path}" has a GLB JSON chunk of ${sniffed.jsonChunk} bytes; import_asset reads JSON (GLB chunks and .gltf files) of at most ${LIMITS.textFileBytes} bytes.`, { field: "path", path: req.path, bytes: sniffed.jsonChunk, limit: LIMITS.textFileBytes });
  if ("mismatch" in sniffed) {
    const said = req.format !== undefined ? "the format parameter" : "its extension";
    throw invalid("FORMAT_MISMATCH", `"${req.path}" ${sniffed.mismatch}, so it cannot be read as ${format}, as ${said} says.`, {
      field: req.format !== undefined ? "format" : "path", path: req.path, format,
    });
  }
  if (size > sniffed.cap) throw tooLarge(req.path, size, sniffed.cap, sniffed.capName);
  return sniffed;
}

const tooLarge = (requested: string, bytes: number, limit: number, what: string) =>
  invalid("FILE_TOO_LARGE", `"${requested}" is ${bytes} bytes; import_asset reads ${what} of at most ${limit} bytes.`, { field: "path", path: requested, bytes, limit });

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
  const format = formatOf(req.format, real);
  await sniffFile(req, real, format, info.size);

  // Decoding runs on the worker pool; the job count bounds how many files are in memory at once.
  return pipelineJob(async () => {
    let side: Record<string, string>;
    try {
      side = await findSideFiles(req.path, real, format, allowed, info.size);
    } catch (e) {
      if (e instanceof KilnError) throw e; // a refused side file (PATH_NOT_ALLOWED, FILE_TOO_LARGE)
      throw invalid("ASSET_UNREADABLE", `"${req.path}" could not be read as ${format}: ${(e as Error).message}`, { field: "path", path: req.path, format });
    }
    const stem = path.basename(real, path.extname(real));
    let decoded;
    try {
      // OBJ and USDA were pre-scanned by findSideFiles' scan, the first task that reads them.
      decoded = await runInWorker({ kind: "decode", format, main: real, side, app: req.app, groupName: stem, prescanned: format === "obj" || format === "usd" });
    } catch (e) {
      throw invalid("ASSET_UNREADABLE", `"${req.path}" could not be read as ${format}: ${(e as Error).message}`, { field: "path", path: req.path, format });
    }
    const imported = await applyImport(kiln, "import_asset", req.app, decoded, { path: real, format }, req.scene);
    return {
      app: req.app, scene: imported.summary.scene, format, file: decoded.file, side_files: Object.values(side),
      imported: imported.summary, warnings: [...new Set(imported.warnings)], duration_ms: Math.round(performance.now() - started),
    };
  });
}

/**
 * The side files of `real` (checked, as the file names them → real path): an OBJ's material
 * libraries and a .gltf's buffers anywhere import_asset may read (PATH_NOT_ALLOWED otherwise),
 * and the texture images of an OBJ's MTLs or a USDA beside the file only; a texture that would
 * be read from elsewhere is left out, and the decoder warns that it is missing.
 */
export async function findSideFiles(requested: string, real: string, format: TransferFormat, allowed: Allowed, mainBytes: number): Promise<Record<string, string>> {
  const side: Record<string, string> = {};
  let total = mainBytes;
  const add = async (name: string, resolved: string | null) => {
    const sideInfo = resolved ? await stat(resolved) : null;
    if (!resolved || !sideInfo!.isFile()) return false;
    total += sideInfo!.size;
    if (total > LIMITS.binaryFileBytes) throw tooLarge(requested, total, LIMITS.binaryFileBytes, "a file and the files it references");
    side[name] = resolved;
    return true;
  };
  const dir = path.dirname(real);
  const textures: string[] = [];
  if (format === "usd") textures.push(...(await runInWorker({ kind: "scan", format, main: real })));
  if (format === "obj" || real.toLowerCase().endsWith(".gltf")) {
    const names = await runInWorker({ kind: "scan", format, main: real });
    for (const name of new Set(names)) {
      const resolved = await resolveAllowed(uriPath(name), dir, allowed, "path").catch((e) => {
        throw invalid("PATH_NOT_ALLOWED", `"${path.basename(real)}" references "${name}", which is outside the folders import_asset reads.`, { ...(e.details ?? {}), field: "path", reference: name });
      });
      if ((await add(name, resolved)) && format === "obj") textures.push(...(await runInWorker({ kind: "scan", format, main: resolved!, library: true })));
    }
  }
  for (const name of new Set(textures)) await add(name, await texturesBeside(name, dir, allowed));
  return side;
}

/** A texture reference as a real path inside `dir` (also after realpath), or null. */
export async function texturesBeside(ref: string, dir: string, allowed: Allowed): Promise<string | null> {
  const name = besideOnly(ref);
  if (name === null) return null;
  const candidate = path.resolve(dir, name);
  let real: string, realDir: string;
  try {
    [real, realDir] = await Promise.all([realpath(candidate), realpath(dir)]);
  } catch {
    return null;
  }
  return inside(dir, candidate) && inside(realDir, real) && allowed.test(real) ? real : null;
}
