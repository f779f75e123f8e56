/** `GET /openapi.json`: the OpenAPI 3.1 description of the tools, behind the same checks as /tools. */
import { json } from "@/server/api/envelope";
import { openApiDocument } from "@/server/api/openapi";
import { admit } from "@/server/api/admit";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  return json(200, openApiDocument());
}
