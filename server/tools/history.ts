/** get_history: the operation log, newest first, with each transaction shown as one entry. */
import { z } from "zod";
import { defineTool } from "./define-tool";
import { num } from "./schemas";

const entryOut = z.object({
  seq: z.number(), kind: z.string(), tool: z.string(), app: z.string().nullable(), branch: z.string(), at: z.string(),
  transaction: z.object({ id: z.string(), name: z.string(), outcome: z.string(), operations: z.number(), tools: z.array(z.string()) }).optional(),
});

export const getHistory = defineTool({
  name: "get_history",
  group: "version_control",
  access: "read",
  description: "The operation history, newest first: each tool call, restore and rollback; a transaction's calls appear as one entry.",
  input: z.strictObject({ limit: num(z.number().int().min(1).max(500)).default(50), offset: num(z.number().int().min(0)).default(0) }),
  output: z.object({ entries: z.array(entryOut), limit: z.number(), offset: z.number() }),
  handler: async (input, { kiln }) => {
    const db = kiln.db;
    // One row per operation outside transactions, one per transaction (its first operation).
    const rows = await db.$queryRaw<{ seq: number; kind: string; tool: string; app: string | null; branch: string; createdAt: Date | string; transactionId: string | null; n: number | bigint }[]>`
      SELECT o."seq", o."kind", o."tool", o."app", o."branch", o."createdAt", o."transactionId", 1 AS n FROM "Operation" o WHERE o."transactionId" IS NULL
      UNION ALL
      SELECT MIN(o."seq") AS seq, 'transaction' AS kind, MIN(o."tool") AS tool, NULL AS app, MIN(o."branch") AS branch, MIN(o."createdAt") AS "createdAt", o."transactionId", COUNT(*) AS n
        FROM "Operation" o WHERE o."transactionId" IS NOT NULL GROUP BY o."transactionId"
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
        ...(tx ? { transaction: { id: tx.id, name: tx.name, outcome: tx.status, operations: Number(r.n), tools: tools.get(tx.id) ?? [] } } : {}),
      };
    });
    return { entries, limit: input.limit, offset: input.offset };
  },
});
