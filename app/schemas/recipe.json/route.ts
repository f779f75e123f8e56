/** `GET /schemas/recipe.json`: the JSON Schema of recipe files, for editors that validate YAML. */
import { fail, json } from "@/server/api/envelope";
import { checkRequest } from "@/server/api/security";
import { recipeJsonSchema } from "@/server/recipes/schema";
import { getKiln } from "@/server/runtime";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const kiln = await getKiln();
  const refused = checkRequest(req, kiln.config);
  if (refused) return fail(refused.status, refused.error);
  return json(200, recipeJsonSchema(), { "content-type": "application/schema+json; charset=utf-8" });
}
