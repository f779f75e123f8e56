/**
 * `GET /versions/<id>/render?app=&scene=&camera=&width=&height=`: a PNG of one app's scene as it is
 * in a version (or "working"), drawn by Kiln's embedded renderer. `camera` names the version whose
 * scene camera to use, so both sides of a diff are seen from the same place. Same auth as /tools.
 */
import { z } from "zod";
import { fail, toErrorBody, zodFields } from "@/server/api/envelope";
import { admit } from "@/server/api/admit";
import { buildRenderInput } from "@/server/scene/render-view";
import { getScene } from "@/server/scene/state";
import { APPS } from "@/server/scene/types";
import { renderPngOffThread } from "@/server/tools/editor/render-off-thread";
import { encodedImagesFor } from "@/server/tools/editor/texture-images";

export const dynamic = "force-dynamic";

const side = z.string().regex(/^(working|v\d{3,})$/, "a version id such as v001, or working");
const size = z.coerce.number().int().min(16).max(2048);
const Query = z.strictObject({
  app: z.enum(APPS), scene: z.string().min(1).max(200).optional(), camera: side.optional(),
  width: size.default(480), height: size.default(270),
});

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  const { kiln } = admitted;
  const { id } = await ctx.params;
  const idOk = side.safeParse(id);
  const q = Query.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!idOk.success || !q.success) {
    const fields = idOk.success ? zodFields(q.error!) : [{ path: "id", message: idOk.error.issues[0].message }];
    return fail(400, { code: "INVALID_PARAMS", message: `Invalid parameter "${fields[0].path || "(query)"}": ${fields[0].message}`, details: { fields } });
  }
  const { app, scene, camera, width, height } = q.data;
  try {
    const state = await kiln.versions.stateOf(id);
    const name = getScene(state, app, scene).name;
    const input = buildRenderInput(state, app, width, height, name, ["grid"]);
    if (camera && camera !== id) {
      // The other side's camera of the same scene; when that side lacks the scene, this side's own.
      const other = await kiln.versions.stateOf(camera, "camera");
      try {
        input.camera = buildRenderInput(other, app, 16, 16, name).camera;
      } catch {
        // Scene absent there: keep this side's camera.
      }
    }
    const image = await renderPngOffThread(input, encodedImagesFor(state, input));
    return new Response(new Uint8Array(image.png), { headers: { "content-type": "image/png", "cache-control": "no-store" } });
  } catch (e) {
    const { status, error } = toErrorBody(e);
    return fail(status, error);
  }
}
