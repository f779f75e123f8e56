/**
 * tRPC procedures derived from the tool registry: one procedure per tool, keyed by the tool's
 * name; reads are queries, writes mutations. The HTTP routes, MCP, recipes and the web UI all
 * call these, so behaviour shared by every surface lives here (e.g. rollback_on_error).
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { KilnError } from "../errors";
import type { ToolContext, ToolDefinition } from "../tools/define-tool";
import { allTools } from "../tools";
import { findUnencodableText } from "../tools/schemas";
import { toErrorBody } from "./envelope";
import { invalidParams } from "./param-errors";
import { authorize } from "../teams/permissions";
import { currentCaller } from "../teams/actor";

// tRPC codes for the statuses Kiln answers, so tRPC clients see the same status as /tools.
const TRPC_CODES: Record<number, TRPCError["code"]> = {
  400: "BAD_REQUEST", 401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 503: "SERVICE_UNAVAILABLE",
};

const t = initTRPC.context<ToolContext>().create({
  // Browser clients get Kiln's error body (code, message, details) beside tRPC's own shape.
  errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, kiln: toErrorBody(error).error } }),
});

/** Rethrows a tool's failure as a TRPCError with the matching code, keeping it as the cause. */
function asTrpcError(e: unknown): never {
  if (e instanceof TRPCError) throw e;
  const { status, error } = toErrorBody(e);
  throw new TRPCError({ code: TRPC_CODES[status] ?? "INTERNAL_SERVER_ERROR", message: error.message, cause: e });
}

/**
 * In a transaction begun with rollback_on_error, the first failing state-changing call rolls it
 * back; the call's error says so in its message and in details.transaction.
 */
async function withRollbackOnError(tool: ToolDefinition, ctx: ToolContext, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (e) {
    const tx = ctx.kiln.transactions;
    if (tool.access !== "write" || tool.group === "transactions" || tool.group === "teams" || !tx.rollbackOnError) throw e;
    const { status, error } = toErrorBody(e);
    const rolled = await tx.rollback(`${tool.name} failed: ${error.code}`);
    throw new KilnError(error.code, `${error.message} The transaction "${rolled.transaction.name}" was rolled back (rollback_on_error).`, status, {
      ...error.details, transaction: { ...rolled.transaction, rolled_back: true },
    });
  }
}

/**
 * The checks every tool's input passes before its own schema: no string anywhere (values or keys)
 * holds a NUL or a lone surrogate, which no database, URL or file format can carry faithfully.
 */
function checkText(input: unknown): void {
  const bad = findUnencodableText(input);
  if (!bad) return;
  const field = bad.path || "(body)";
  throw new KilnError("INVALID_PARAMS", `Invalid parameter "${field}": ${bad.message}`, 400, { fields: [{ path: bad.path, message: bad.message }] });
}

/** The tool's parameters, validated; INVALID_PARAMS in words derived from its schema otherwise. */
async function parseParams(tool: ToolDefinition, input: unknown): Promise<unknown> {
  const parsed = await tool.input.safeParseAsync(input);
  if (!parsed.success) throw invalidParams(tool.name, parsed.error, tool.input, input);
  return parsed.data;
}

function toolProcedures() {
  const entries = allTools().map((tool) => {
    // The caller's rights are checked first, outside the guarded call: a refused call is not a
    // failure of the transaction (a viewer cannot roll back an editor's rollback_on_error group).
    // Validation happens inside the guarded call so that invalid params also count as a failure.
    const run = ({ input, ctx }: { input: unknown; ctx: ToolContext }) => {
      try {
        authorize(tool);
      } catch (e) {
        return Promise.reject(e).catch(asTrpcError);
      }
      // The caller is active: presence notes the call and their locks are renewed (both O(1)).
      const { actor } = currentCaller();
      ctx.kiln.teams.presence.seen(actor, tool.name);
      ctx.kiln.teams.locks.touch(actor);
      return withRollbackOnError(tool, ctx, async () => {
        checkText(input);
        return tool.handler(await parseParams(tool, input), ctx);
      }).catch(asTrpcError);
    };
    const base = t.procedure.input((raw) => raw);
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

