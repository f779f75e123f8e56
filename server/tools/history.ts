/** get_history: the operation log, newest first, with each transaction shown as one entry. */
import { z } from "zod";
import { Prisma } from "../db/generated/sqlite/client";
import { EVENT_SOURCES as CALL_SOURCES } from "../events/types";
import { defineTool } from "./define-tool";
import { appId, num } from "./schemas";
import { actorOut, actorSelectSql, personFilter, personSql, readActor, type ActorColumns } from "../teams/attribution";

const entryOut = z.object({
  seq: z.number(), kind: z.string(), tool: z.string(), app: z.string().nullable(), branch: z.string(), at: z.string(),
  source: z.enum(CALL_SOURCES).nullable().describe("Where the call came from; null for operations logged before sources were recorded."),
  actor: actorOut.describe("Who made it, through which client (a transaction: who began it)."),
  transaction: z.object({ id: z.string(), name: z.string(), outcome: z.string(), operations: z.number(), tools: z.array(z.string()) }).optional(),
});

type Row = ActorColumns & { seq: number; kind: string; tool: string; app: string | null; branch: string; source: string | null; createdAt: Date | string; transactionId: string | null; n: number | bigint };

export const getHistory = defineTool({
  name: "get_history",
  group: "version_control",
  access: "read",
  description:
    "The operation history, newest first: each tool call, restore and rollback, with who made it (`actor.by`: \"Ada via Claude Desktop\") and its source (http, mcp, recipe, live, cli, internal); " +
    "a transaction's calls appear as one entry unless transaction_id asks for that transaction's calls one by one.",
  input: z.strictObject({
    limit: num(z.number().int().min(1).max(500)).default(50),
    offset: num(z.number().int().min(0)).default(0),
    tool: z.string().min(1).max(100).optional().describe("Only calls of this tool (a transaction counts when one of its calls matches)."),
    app: appId().optional().describe("Only operations on this app."),
    source: z.enum(CALL_SOURCES).optional().describe("Only calls from this source."),
    person: personFilter().optional(),
    transaction_id: z.string().min(1).max(100).optional().describe("The calls of this transaction (open or ended), one entry each."),
  }),
  output: z.object({ entries: z.array(entryOut), limit: z.number(), offset: z.number() }),
  handler: async (input, { kiln }) => {
    const db = kiln.db;
    const filters = [
      input.tool ? Prisma.sql`o."tool" = ${input.tool}` : null,
      input.app ? Prisma.sql`o."app" = ${input.app}` : null,
      input.source ? Prisma.sql`o."source" = ${input.source}` : null,
      input.person ? personSql(input.person, "o") : null,
    ].filter((f): f is Prisma.Sql => f !== null);
    const and = filters.length ? Prisma.sql` AND ${Prisma.join(filters, " AND ")}` : Prisma.empty;
    const actors = actorSelectSql("o");
    // A transaction's actor is read from its row below; these only fill the UNION's columns.
    const groupActors = Prisma.raw(["actorId", "actorName", "actorClient", "actorClientName", "actorToken", "actorSession"].map((c) => `MIN(o."${c}") AS "${c}"`).join(", "));
    // One row per operation outside transactions, one per transaction (its first operation).
    const rows = input.transaction_id
      ? await db.$queryRaw<Row[]>`
        SELECT o."seq", o."kind", o."tool", o."app", o."branch", o."source", o."createdAt", NULL AS "transactionId", 1 AS n, ${actors} FROM "Operation" o
        WHERE o."transactionId" = ${input.transaction_id}${and} ORDER BY o."seq" DESC LIMIT ${input.limit} OFFSET ${input.offset}`
      : await db.$queryRaw<Row[]>`
        SELECT o."seq", o."kind", o."tool", o."app", o."branch", o."source", o."createdAt", o."transactionId", 1 AS n, ${actors} FROM "Operation" o WHERE o."transactionId" IS NULL${and}
        UNION ALL
        SELECT MIN(o."seq") AS seq, 'transaction' AS kind, MIN(o."tool") AS tool, NULL AS app, MIN(o."branch") AS branch, MIN(o."source") AS source, MIN(o."createdAt") AS "createdAt", o."transactionId", COUNT(*) AS n, ${groupActors}
          FROM "Operation" o WHERE o."transactionId" IS NOT NULL${and} GROUP BY o."transactionId"
        ORDER BY seq DESC LIMIT ${input.limit} OFFSET ${input.offset}`;
    const txIds = rows.map((r) => r.transactionId).filter((x): x is string => !!x);
    const txs = new Map((await db.transaction.findMany({ where: { id: { in: txIds } } })).map((t) => [t.id, t]));
    const tools = new Map<string, string[]>();
    for (const o of await db.operation.findMany({ where: { transactionId: { in: txIds } }, select: { transactionId: true, tool: true }, orderBy: { seq: "asc" } })) {
      const list = tools.get(o.transactionId!) ?? [];
      if (!list.includes(o.tool)) list.push(o.tool);
      tools.set(o.transactionId!, list);
    }
    const entries = rows.map((r) => {
      const tx = r.transactionId ? txs.get(r.transactionId) : undefined;
      return {
        seq: Number(r.seq), kind: r.kind, tool: tx ? "transaction" : r.tool, app: r.app, branch: r.branch, at: new Date(r.createdAt).toISOString(),
        actor: readActor(tx ?? r),
        source: (CALL_SOURCES as readonly string[]).includes(r.source ?? "") ? (r.source as (typeof CALL_SOURCES)[number]) : null,
        ...(tx ? { transaction: { id: tx.id, name: tx.name, outcome: tx.status, operations: Number(r.n), tools: tools.get(tx.id) ?? [] } } : {}),
      };
    });
    return { entries, limit: input.limit, offset: input.offset };
  },
});
