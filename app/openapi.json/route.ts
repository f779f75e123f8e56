/** `GET /openapi.json`: the OpenAPI 3.1 description of the tools, behind the same checks as /tools. */
import { fail, json } from "@/server/api/envelope";
import { openApiDocument } from "@/server/api/openapi";
import { checkRequest } from "@/server/api/security";
import { getKiln } from "@/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const kiln = await getKiln();
  const refused = checkRequest(req, kiln.config);
  if (refused) return fail(refused.status, refused.error);
  return json(200, openApiDocument());
}
