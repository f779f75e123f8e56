/** The transaction tools; behaviour lives in server/transactions. */
import { z } from "zod";
import { defineTool } from "./define-tool";
import { bool, name } from "./schemas";

const openOut = z.object({
  id: z.string(), name: z.string(), started_at: z.string(), operations: z.number(), tools: z.array(z.string()), rollback_on_error: z.boolean(),
});
const endedOut = z.object({
  id: z.string(), name: z.string(), outcome: z.enum(["committed", "rolled_back"]), ended_at: z.string(), operations: z.number(), reason: z.string().optional(),
});

export const beginTransaction = defineTool({
  name: "begin_transaction",
  group: "transactions",
  access: "write",
  description: "Begin a transaction: later state-changing calls join it until commit or rollback. With rollback_on_error, the first failing call rolls it back.",
  input: z.strictObject({ name: name("Transaction name"), rollback_on_error: bool().default(false) }),
  output: z.object({ transaction: openOut }),
  handler: (input, { kiln }) => kiln.transactions.begin(input.name, input.rollback_on_error),
});

export const commitTransaction = defineTool({
  name: "commit_transaction",
  group: "transactions",
  access: "write",
  description: "Commit the open transaction: its calls become one entry of the operation history.",
  input: z.strictObject({}),
  output: z.object({ transaction: endedOut }),
  handler: (_input, { kiln }) => kiln.transactions.commit(),
});

export const rollbackTransaction = defineTool({
  name: "rollback_transaction",
  group: "transactions",
  access: "write",
  destructive: true,
  description: "Roll back the open transaction: every app's scene returns exactly to its state at begin.",
  input: z.strictObject({}),
  output: z.object({ transaction: endedOut, restored_records: z.number() }),
  handler: (_input, { kiln }) => kiln.transactions.rollback(),
});

export const getTransactionStatus = defineTool({
  name: "get_transaction_status",
  group: "transactions",
  access: "read",
  description: "Whether a transaction is open (with its calls so far) and how the last one ended.",
  input: z.strictObject({}),
  output: z.object({ status: z.enum(["open", "none"]), transaction: openOut.optional(), last: endedOut.optional() }),
  handler: (_input, { kiln }) => kiln.transactions.status(),
});
