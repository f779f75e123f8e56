/** `GET /schemas/recipe.json`: the JSON Schema of recipe files, for editors that validate YAML. */
import { json } from "@/server/api/envelope";
import { admit } from "@/server/api/admit";
import { recipeJsonSchema } from "@/server/recipes/schema";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const admitted = await admit(req);
  if ("refused" in admitted) return admitted.refused;
  return json(200, recipeJsonSchema(), { "content-type": "application/schema+json; charset=utf-8" });
}
