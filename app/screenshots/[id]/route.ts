/**
 * `/screenshots/<id>.png`: PNGs written by take_screenshot. The id is checked, so no path escapes,
 * and only a regular file in the folder is served (a symlink planted there is not followed).
 */
import { fail } from "@/server/api/envelope";
import { readRegularFileInside } from "@/server/api/regular-file";
import { admit } from "@/server/api/admit";

export const dynamic = "force-dynamic";

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.png$/;

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln } = admitted;
  const { id } = await ctx.params;
  if (!ID.test(id)) return fail(404, { code: "SCREENSHOT_NOT_FOUND", message: `No screenshot named "${id}".` });
  const png = await readRegularFileInside(kiln.screenshotsDir, id);
  if (!png) return fail(404, { code: "SCREENSHOT_NOT_FOUND", message: `No screenshot named "${id}".` });
  return new Response(new Uint8Array(png), { headers: { "content-type": "image/png", "cache-control": "public, max-age=31536000, immutable" } });
}
