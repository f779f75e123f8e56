/** `GET /tools`: the tool catalogue. */
import { catalogue } from "@/server/api/catalogue";
import { fail, json } from "@/server/api/envelope";
import { checkRequest } from "@/server/api/security";
import { getKiln } from "@/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const kiln = await getKiln();
  const refused = checkRequest(req, kiln.config);
  if (refused) return fail(refused.status, refused.error);
  return json(200, { ok: true, result: { tools: catalogue() } });
}
