/**
 * `GET /transfers/<id>/file`: downloads the file a transfer wrote. Only the path recorded for that
 * transfer is served, and only when it resolves (symlinks followed) inside .kiln/assets/<id>/, so no
 * request can reach another file. Same auth as /tools.
 */
import { realpath, readFile } from "node:fs/promises";
import path from "node:path";
import { fail } from "@/server/api/envelope";
import { admit } from "@/server/api/admit";
import { assetsDir } from "@/server/pipeline/files";

export const dynamic = "force-dynamic";

const ID = /^[A-Za-z0-9_-]{1,100}$/;
const TYPES: Record<string, string> = {
  ".glb": "model/gltf-binary", ".gltf": "model/gltf+json", ".fbx": "application/octet-stream", ".obj": "model/obj", ".usda": "model/vnd.usda",
};

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln } = admitted;
  const { id } = await ctx.params;
  const missing = () => fail(404, { code: "TRANSFER_FILE_NOT_FOUND", message: `Transfer "${id}" has no file to download.`, details: { transfer_id: id } });
  if (!ID.test(id)) return missing();
  const transfer = await kiln.db.transfer.findUnique({ where: { id }, select: { filePath: true } });
  if (!transfer?.filePath) return missing();
  try {
    const [dir, file] = await Promise.all([realpath(path.join(assetsDir(kiln.config.home), id)), realpath(transfer.filePath)]);
    if (!file.startsWith(dir + path.sep)) return missing();
    const data = await readFile(file);
    const name = path.basename(file).replace(/[^A-Za-z0-9._-]/g, "_");
    return new Response(new Uint8Array(data), {
      headers: {
        "content-type": TYPES[path.extname(name).toLowerCase()] ?? "application/octet-stream",
        "content-disposition": `attachment; filename="${name}"`, "content-length": String(data.length),
        "cache-control": "no-store", "x-content-type-options": "nosniff",
      },
    });
  } catch {
    return missing();
  }
}
