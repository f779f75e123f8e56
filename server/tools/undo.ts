/** undo and redo: behaviour lives in server/workspace/undo.ts; docs/undo.md says what they do. */
import { z } from "zod";
import { redoLast, undoLast, undoState } from "../workspace/undo";
import { actorOut } from "../teams/attribution";
import { defineTool } from "./define-tool";

const undoOut = z.object({
  seq: z.number().describe("The log entry that records this undo or redo."),
  steps: z.array(z.number()).describe("The log entries whose effect was undone or redone (several for a committed transaction)."),
  tools: z.array(z.string()),
  changed_records: z.number(),
  can_undo: z.boolean(),
  can_redo: z.boolean(),
});

export const undo = defineTool({
  name: "undo",
  group: "editor",
  access: "write",
  description:
    "Undo your last change on the current branch (a tool call, a live edit, a redo, or a whole committed transaction) as a new history entry of inverse changes. " +
    "Yours: in team mode the signed-in person's, in personal mode this client session's (a Studio tab, an MCP session, a CLI run); others' changes stay. " +
    "When someone else changed one of its records since, 409 UNDO_CONFLICT names who and what, and nothing changes. Inside an open transaction, only its own calls can be undone.",
  input: z.strictObject({}),
  output: undoOut,
  handler: (_input, { kiln }) => undoLast(kiln),
});

export const redo = defineTool({
  name: "redo",
  group: "editor",
  access: "write",
  description: "Redo your last undone change on the current branch, as a new history entry; a change of yours since the undo ends what can be redone (others' changes do not, but one to the same record is a 409 UNDO_CONFLICT).",
  input: z.strictObject({}),
  output: undoOut,
  handler: (_input, { kiln }) => redoLast(kiln),
});

const stepOut = z.object({
  steps: z.array(z.number()), tools: z.array(z.string()),
  label: z.string().describe('What it would undo or redo, as the Studio says it: "move Box", "transaction \\"layout\\"".'),
  at: z.string().describe("When that step was made."),
  by: actorOut,
});

export const getUndoState = defineTool({
  name: "get_undo_state",
  group: "editor",
  access: "read",
  description: "What your undo and redo would act on now (your own steps on the current branch): each step's label (\"move Box\"), tools, time and author; null when there is none.",
  input: z.strictObject({}),
  output: z.object({ undo: stepOut.nullable(), redo: stepOut.nullable(), can_undo: z.boolean(), can_redo: z.boolean() }),
  handler: (_input, { kiln }) => undoState(kiln),
});
