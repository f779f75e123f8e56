/** `GET /tools`: the tool catalogue. */
import { catalogue } from "@/server/api/catalogue";
import { json } from "@/server/api/envelope";
import { admit } from "@/server/api/admit";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  return json(200, { ok: true, result: { tools: catalogue() } });
}
