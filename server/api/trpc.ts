/**
 * tRPC procedures derived from the tool registry: one procedure per tool, keyed by the tool's
 * name; reads are queries, writes mutations. The HTTP routes and the web UI both call these.
 */
import { initTRPC } from "@trpc/server";
import type { ToolContext } from "../tools/define-tool";
import { allTools } from "../tools";

const t = initTRPC.context<ToolContext>().create();

function toolProcedures() {
  const entries = allTools().map((tool) => {
    const base = t.procedure.input(tool.input);
    const run = ({ input, ctx }: { input: unknown; ctx: ToolContext }) => tool.handler(input, ctx);
    return [tool.name, tool.access === "read" ? base.query(run) : base.mutation(run)] as const;
  });
  return Object.fromEntries(entries);
}

export const appRouter = t.router({ tools: t.router(toolProcedures()) });
export type AppRouter = typeof appRouter;

/** Server-side caller: runs a procedure in-process, with no HTTP hop. */
export const createCaller = t.createCallerFactory(appRouter);

/** Calls a tool by name through its tRPC procedure. */
export function callTool(ctx: ToolContext, name: string, input: unknown): Promise<unknown> {
  const tools = createCaller(ctx).tools as unknown as Record<string, (input: unknown) => Promise<unknown>>;
  return tools[name](input);
}
