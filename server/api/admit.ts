/**
 * The first step of every HTTP surface (/tools, /events): the running Kiln, or the answer that
 * refuses the request (Kiln failed to start; Host, Origin or token checks).
 */
import { getKiln, type Kiln } from "../runtime";
import { fail, toErrorBody } from "./envelope";
import { checkRequest } from "./security";

export async function admit(req: Request): Promise<{ kiln: Kiln } | { refused: Response }> {
  let kiln: Kiln;
  try {
    kiln = await getKiln();
  } catch (e) {
    const { status, error } = toErrorBody(e);
    return { refused: fail(status, error) };
  }
  const refusal = checkRequest(req, kiln.config);
  return refusal ? { refused: fail(refusal.status, refusal.error) } : { kiln };
}
