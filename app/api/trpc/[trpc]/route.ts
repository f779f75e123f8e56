/** tRPC over HTTP for the web UI: the same procedures as /tools, behind the same checks and body limit. */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { admit } from "@/server/api/admit";
import { fail, toErrorBody } from "@/server/api/envelope";
import { readBody } from "@/server/api/security";
import { appRouter } from "@/server/api/trpc";
import { withCaller } from "@/server/teams/actor";

export const dynamic = "force-dynamic";

async function handler(req: Request) {
  const admitted = await admit(req, "browser");
  if ("refused" in admitted) return admitted.refused;
  const { kiln, caller } = admitted;
  if (req.method === "POST") {
    const body = await readBody(req, kiln.config.bodyLimit);
    if (body === null) return fail(413, { code: "BODY_TOO_LARGE", message: `The request body is larger than ${kiln.config.bodyLimit} bytes.` });
    req = new Request(req.url, { method: "POST", headers: req.headers, body });
  }
  // allowMethodOverride: the builder sends queries as POST, since validate_recipe carries whole recipes.
  return withCaller(caller, () => fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, allowMethodOverride: true, createContext: () => ({ kiln }),
    // tRPC has no code for some of Kiln's statuses (423 LOCKED): a single call's answer keeps Kiln's own status.
    responseMeta: ({ errors, paths }) => (errors.length === 1 && (paths?.length ?? 1) === 1 ? { status: toErrorBody(errors[0]).status } : {}),
  }));
}

export { handler as GET, handler as POST };
