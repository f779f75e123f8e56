/** `/tools/<name>`: every method goes to the registry's HTTP surface, which answers 405 itself. */
import { handleToolRequest } from "@/server/api/http";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };
const handle = async (req: Request, ctx: Ctx) => handleToolRequest(req, (await ctx.params).name);

export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
